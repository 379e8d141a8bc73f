#!/usr/bin/env python3
"""Fault suite, on a PRIVATE throwaway PostgreSQL cluster (never the shared server on 5432):

  pg       PostgreSQL stopped (`pg_ctl stop -m immediate`) under load, then started again:
           answers while down are 503 (or a completed success) within FAIL_FAST_SECONDS, never
           500; /readyz 503 while down and 200 after; the service recovers by itself; every
           batch of task mappings is all-or-nothing; the activity log holds only real requests.
  llm      the language model hanging, answering 503, or refusing connections: 502
           `coach_unavailable` within LLM_TIMEOUT_SECONDS + LLM_MARGIN_SECONDS; nothing changed.
  sigterm  SIGTERM under load: in-flight requests finish, the process exits 0, and the activity
           log holds exactly one row per answered request.

Environment: FAULTS=pg,llm,sigterm (which parts), FAIL_FAST_SECONDS (2), DOWN_SECONDS (12),
RECOVERY_SECONDS (15), LLM_TIMEOUT_SECONDS (3), LLM_MARGIN_SECONDS (3), DISCOVERY_API /
DISCOVERY_BATCH (else built with cargo; RELIABILITY_PROFILE=debug|release).
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ left in the tree
from common import (  # noqa: E402
    Checks, PrivateCluster, Service, Stopper, bearer, binaries, create_key, dev_login, discover,
    env_float, env_int, free_port, iso, log, main_wrapper, percentile, psql, request, request_id,
)

HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------------------------------------
# a. PostgreSQL down during a load


def fault_pg(cluster: PrivateCluster, api: str, checks: Checks, figures: list[str]) -> None:
    fail_fast = env_float("FAIL_FAST_SECONDS", 2)
    down_for = env_float("DOWN_SECONDS", 12)
    recovery_bound = env_float("RECOVERY_SECONDS", 15)
    pre, post, workers, batch_size = 3.0, 3.0, 12, 5
    url = cluster.create_db("fault_pg")
    svc = Service(api, url, "api-pg-down")
    try:
        ids: list[str] = []
        people = [dev_login(svc.base, f"pgdown{i}@example.org", ids) for i in range(4)]
        for p in people:
            create_key(svc.base, p, ids)
        records: list[dict] = []
        readyz: list[dict] = []
        lock = threading.Lock()
        stop = Stopper()

        def worker(w: int) -> None:
            p = people[w % len(people)]
            n = 0
            while not stop:
                n += 1
                op = ("batch", "patterns", "me")[n % 3]
                rid = request_id(f"pg{w}")
                rec = {"op": op, "rid": rid, "start": time.monotonic(), "status": None}
                try:
                    if op == "batch":
                        rec["batch"] = f"pgb-{w}-{n}"
                        items = [{"external_task_id": f"pgb-{w}-{n}-{k}", "task_label": "fault",
                                  "foundation": "mission", "minutes": 10 + k,
                                  "occurred_at": iso(time.time() - 3600)} for k in range(batch_size)]
                        r = request(svc.base, "POST", "/integration/task-mappings/batch",
                                    {"items": items}, {"X-API-Key": p.key, "X-Request-Id": rid})
                    elif op == "patterns":
                        r = request(svc.base, "GET", "/integration/work-patterns?days=14", None,
                                    {"X-API-Key": p.key, "X-Request-Id": rid})
                    else:
                        r = request(svc.base, "GET", "/api/me", None,
                                    {"Authorization": f"Bearer {p.access}", "X-Request-Id": rid})
                    rec.update(status=r.status, code=r.code)
                except Exception as e:  # noqa: BLE001 - every transport failure is a finding
                    rec["error"] = repr(e)
                rec["end"] = time.monotonic()
                with lock:
                    records.append(rec)

        def poll_readyz() -> None:
            while not stop:
                t = time.monotonic()
                try:
                    status = request(svc.base, "GET", "/readyz", timeout=30).status
                except Exception as e:  # noqa: BLE001
                    status = repr(e)
                readyz.append({"start": t, "end": time.monotonic(), "status": status})
                time.sleep(0.2)

        threads = [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(workers)]
        threads.append(threading.Thread(target=poll_readyz, daemon=True))
        for t in threads:
            t.start()
        time.sleep(pre)
        log("stopping the private PostgreSQL (-m immediate) under load")
        t_down0 = time.monotonic()
        cluster.stop("immediate")
        t_down = time.monotonic()
        # One readiness probe sent surely after the stop (the poller's may straddle it).
        probe = request(svc.base, "GET", "/readyz", timeout=30)
        readyz.append({"start": t_down, "end": time.monotonic(), "status": probe.status})
        time.sleep(max(0.0, down_for - (time.monotonic() - t_down)))
        log("starting PostgreSQL again")
        t_up0 = time.monotonic()
        cluster.start()
        t_up = time.monotonic()
        t_ready = None
        while time.monotonic() < t_up + recovery_bound + 10:
            if request(svc.base, "GET", "/readyz", timeout=30).status == 200:
                t_ready = time.monotonic()
                break
            time.sleep(0.1)
        time.sleep(post)
        stop.set()
        for t in threads:
            t.join(60)

        # -- checks on the answers
        answered = [r for r in records if r["status"] is not None]
        errors = [r for r in records if r["status"] is None]
        checks.check(not errors, f"pg: no transport errors ({len(errors)}"
                     + (f", e.g. {errors[0]['error']}" if errors else "") + ")")
        bad5xx = [r for r in answered if r["status"] >= 500 and r["status"] != 503]
        checks.check(not bad5xx, f"pg: no 5xx other than 503 ({len(bad5xx)}"
                     + (f", e.g. {bad5xx[0]['op']} {bad5xx[0]['status']} {bad5xx[0].get('code')}"
                        if bad5xx else "") + ")")
        bad4xx = [r for r in answered if 400 <= r["status"] < 500]
        checks.check(not bad4xx, f"pg: no 4xx, e.g. no 401 for a valid credential while down ({len(bad4xx)}"
                     + (f", e.g. {bad4xx[0]['op']} {bad4xx[0]['status']} {bad4xx[0].get('code')}"
                        if bad4xx else "") + ")")
        # wholly inside the outage: 503 (or a success from the credential cache)
        while_down = [r for r in answered if r["start"] >= t_down and r["end"] <= t_up0]
        down503 = [r for r in while_down if r["status"] == 503]
        during = [r for r in answered if r["status"] == 503 and r["end"] > t_down and r["start"] < t_up0]
        checks.check(bool(during) and len(down503) == len(while_down) - sum(
            1 for r in while_down if 200 <= r["status"] < 300),
                     f"pg: requests during the outage answered 503 ({len(during)} 503s; of the "
                     f"{len(while_down)} wholly inside it, {len(down503)} 503)")
        bad_code = [r for r in answered if r["status"] == 503 and r.get("code") != "unavailable"]
        checks.check(not bad_code, f"pg: every 503 carries code `unavailable` ({len(bad_code)} others)")
        fail_times = [r["end"] - r["start"] for r in answered if r["status"] == 503]
        started_down = [r["end"] - r["start"] for r in records if t_down <= r["start"] < t_up0]
        slow = [t for t in fail_times + started_down if t > fail_fast]
        checks.check(not slow, f"pg: every 503, and every request started while down, answered within "
                     f"{fail_fast:g} s (503 max {max(fail_times, default=0):.2f} s, p50 "
                     f"{percentile(fail_times, 50):.2f} s; started while down: max {max(started_down, default=0):.2f} s)")
        down_ok = [r for r in while_down if 200 <= r["status"] < 300]
        # -- readiness
        rz_down = [r for r in readyz if r["start"] >= t_down and r["end"] <= t_up0]
        checks.check(bool(rz_down) and all(r["status"] == 503 for r in rz_down),
                     f"pg: /readyz 503 while down ({[r['status'] for r in rz_down]})")
        rz_time = max((r["end"] - r["start"] for r in rz_down), default=0)
        checks.check(t_ready is not None and t_ready - t_up <= recovery_bound,
                     f"pg: /readyz 200 again {((t_ready or 0) - t_up):.2f} s after PostgreSQL started "
                     f"(bound {recovery_bound:g} s), no restart of the service")
        settled = [r for r in answered if t_ready and r["start"] >= t_ready + 1.0]
        not_ok = [r for r in settled if not 200 <= r["status"] < 300]
        checks.check(bool(settled) and not not_ok,
                     f"pg: every request after recovery succeeds ({len(settled) - len(not_ok)} of {len(settled)})")
        checks.check(svc.proc.poll() is None, "pg: the service process kept running")
        # -- writes: flush the activity queue by a graceful stop, then count
        code = svc.terminate()
        checks.check(code == 0, f"pg: graceful stop after recovery exits 0 (got {code})")
        rows = psql(url, "SELECT substring(external_task_id from '^(pgb-[0-9]+-[0-9]+)-'), count(*) "
                         "FROM task_mapping WHERE external_task_id LIKE 'pgb-%' GROUP BY 1")
        present = {b: int(n) for b, n in (line.split("|") for line in rows.splitlines() if line)}
        partial = {b: n for b, n in present.items() if n != batch_size}
        checks.check(not partial, f"pg: every batch all-or-nothing ({len(present)} present, partial: {partial or 'none'})")
        acked = {r["batch"] for r in answered if r["op"] == "batch" and 200 <= r["status"] < 300}
        lost = acked - present.keys()
        checks.check(not lost, f"pg: every acknowledged batch is stored ({len(acked)} acked, lost: {sorted(lost)[:5] or 'none'})")
        failed_but_stored = {r["batch"] for r in answered if r["op"] == "batch" and r["status"] == 503} & present.keys()
        # activity: only requests that really came; everything answered outside the outage logged,
        # and with the status the client saw
        logged = dict(
            line.split("|") for line in psql(
                url, "SELECT request_id, status FROM activity_log WHERE request_id LIKE 'rel-%'").splitlines() if line)
        sent = {r["rid"]: r for r in records}
        phantom = [rid for rid in logged if rid not in sent and rid not in ids]
        checks.check(not phantom, f"pg: no activity row for a request never sent ({len(phantom)})")
        outside = [r for r in answered if r["end"] < t_down0 - 1.0 or (t_ready and r["start"] >= t_ready + 1.0)]
        missing = [r for r in outside if r["rid"] not in logged] + [rid for rid in ids if rid not in logged]
        checks.check(not missing, f"pg: activity logged for every request answered outside the outage "
                     f"({len(outside) + len(ids) - len(missing)} of {len(outside) + len(ids)})")
        mismatch = [r for r in answered if r["rid"] in logged and int(logged[r["rid"]]) != r["status"]]
        checks.check(not mismatch, f"pg: logged status equals the answered status ({len(mismatch)} differ)")
        lost_activity = sum(1 for r in answered if r["rid"] not in logged)
        log_lost = len(re.findall(r"activity batch lost", svc.log_text()))
        figures.append(
            f"pg: {len(answered)} answers ({sum(1 for r in answered if 200 <= r['status'] < 300)} 2xx, "
            f"{sum(1 for r in answered if r['status'] == 503)} 503); while down {len(while_down)} "
            f"({len(down503)} 503, {len(down_ok)} 2xx from the credential cache); 503 latency "
            f"p50 {percentile(fail_times, 50):.2f} s max {max(fail_times, default=0):.2f} s; "
            f"/readyz while down {rz_time:.2f} s")
        figures.append(
            f"pg: stop took {t_down - t_down0:.2f} s, down {t_up0 - t_down:.1f} s, start {t_up - t_up0:.2f} s, "
            f"ready {((t_ready or 0) - t_up):.2f} s later; batches: {len(acked)} acked, {len(present)} stored, "
            f"{len(failed_but_stored)} answered 503 yet committed (commit raced the stop), 0 partial; "
            f"activity rows lost during the outage: {lost_activity} ({log_lost} 'activity batch lost' log lines)")
    finally:
        svc.close()


# ---------------------------------------------------------------------------------------------
# b. the language model down or hanging


def fault_llm(cluster: PrivateCluster, api: str, checks: Checks, figures: list[str]) -> None:
    timeout = env_int("LLM_TIMEOUT_SECONDS", 3)
    margin = env_float("LLM_MARGIN_SECONDS", 3)
    url = cluster.create_db("fault_llm")
    llm_port = free_port()
    fake = subprocess.Popen([sys.executable, str(HERE / "fake_llm.py"), str(llm_port), "hang"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    offline = llm = None
    try:
        assert fake.stdout is not None and fake.stdout.readline().strip() == "ready"
        fake_base = f"http://127.0.0.1:{llm_port}"
        offline = Service(api, url, "api-offline")
        llm = Service(api, url, "api-llm", extra={
            "LLM_PROVIDER": "openai", "LLM_BASE_URL": f"{fake_base}/v1", "LLM_MODEL": "fake",
            "LLM_TIMEOUT_SECONDS": str(timeout)})
        # X: a finished conversation waiting for extraction. Y: a profile made offline, unlocked.
        x = dev_login(llm.base, "llm-x@example.org")
        discover(llm.base, x, affirm=False, complete=False)
        y = dev_login(offline.base, "llm-y@example.org")
        discover(offline.base, y, affirm=False)
        y_llm = dev_login(llm.base, "llm-y@example.org")

        def snapshot() -> str:
            return psql(url, "SELECT (SELECT count(*) FROM discovery_profile) || ',' || "
                             "(SELECT count(*) FROM profile_revision) || ',' || "
                             "(SELECT count(*) FROM reflection_message) || ',' || "
                             "(SELECT string_agg(id || ':' || coalesce(completed_at::text, 'open'), ';' ORDER BY id) "
                             "FROM discovery_conversation) || ',' || "
                             "(SELECT string_agg(id || ':' || version || ':' || md5(love_summary || overlap_narrative), ';' ORDER BY id) "
                             "FROM discovery_profile)")

        before = snapshot()
        calls = [
            ("complete", x, "POST", "/discovery/conversation/me/complete", None),
            ("reflect", y_llm, "POST", "/discovery/profile/me/reflect", {"message": "I also love teaching."}),
            ("opener", y_llm, "POST", "/discovery/profile/me/reflect", {"opener": True}),
        ]
        timings = {}
        for mode in ("hang", "error", "refuse"):
            if mode == "refuse":
                fake.terminate()
                fake.wait(10)
            else:
                request(fake_base, "POST", f"/control/{mode}")
            for name, who, method, path, body in calls:
                r = request(llm.base, method, path, body, bearer(who.access), timeout=timeout + 60)
                ok = r.status == 502 and r.code == "coach_unavailable"
                checks.check(ok, f"llm {mode}: {name} answers 502 coach_unavailable (got {r.status} {r.code})")
                lower = timeout - 0.5 if mode == "hang" else 0
                checks.check(lower <= r.elapsed <= timeout + margin,
                             f"llm {mode}: {name} answered in {r.elapsed:.2f} s "
                             f"(bound {lower:g}..{timeout + margin:g} s)")
                timings[f"{mode}/{name}"] = r.elapsed
        after = snapshot()
        checks.check(before == after, "llm: nothing changed (profiles, revisions, reflection turns, "
                     "conversation status, profile versions and texts)")
        conv = request(llm.base, "GET", "/discovery/conversation/me", None, bearer(x.access))
        checks.check(conv.status == 200 and conv.json()["status"] == "in_progress",
                     "llm: the conversation stays open after the failed extraction")
        prof = request(llm.base, "GET", "/discovery/profile/me", None, bearer(x.access))
        checks.check(prof.status == 404, f"llm: no profile made for the failed extraction ({prof.status})")
        checks.check(request(llm.base, "GET", "/readyz").status == 200, "llm: the service stays ready")
        figures.append(f"llm (LLM_TIMEOUT_SECONDS={timeout}): " + ", ".join(
            f"{k} {v:.2f} s" for k, v in timings.items()))
    finally:
        for s in (llm, offline):
            if s:
                s.close()
        if fake.poll() is None:
            fake.kill()
            fake.wait(10)


# ---------------------------------------------------------------------------------------------
# c. SIGTERM during a load


def fault_sigterm(cluster: PrivateCluster, api: str, checks: Checks, figures: list[str]) -> None:
    url = cluster.create_db("fault_sigterm")
    svc = Service(api, url, "api-sigterm")
    try:
        ids: list[str] = []
        people = [dev_login(svc.base, f"term{i}@example.org", ids) for i in range(4)]
        for p in people:
            create_key(svc.base, p, ids)
        seeded = len(ids)  # every seeding request was answered (else dev_login raised)
        records: list[dict] = []
        lock = threading.Lock()
        big = 300

        def worker(w: int) -> None:
            p = people[w % len(people)]
            n = 0
            while True:
                n += 1
                op = ("batch", "patterns", "me", "single")[n % 4]
                rid = request_id(f"term{w}")
                rec = {"op": op, "rid": rid, "start": time.monotonic(), "status": None}
                try:
                    h = {"X-API-Key": p.key, "X-Request-Id": rid}
                    if op == "batch":
                        rec["batch"] = f"tb-{w}-{n}"
                        items = [{"external_task_id": f"tb-{w}-{n}-{k}", "task_label": "term",
                                  "foundation": "love", "minutes": 5,
                                  "occurred_at": iso(time.time() - 7200)} for k in range(big)]
                        r = request(svc.base, "POST", "/integration/task-mappings/batch", {"items": items}, h)
                    elif op == "patterns":
                        r = request(svc.base, "GET", "/integration/work-patterns?days=14", None, h)
                    elif op == "me":
                        r = request(svc.base, "GET", "/api/me", None,
                                    {"Authorization": f"Bearer {p.access}", "X-Request-Id": rid})
                    else:
                        r = request(svc.base, "POST", "/integration/task-mappings",
                                    {"external_task_id": f"ts-{w}-{n}", "task_label": None,
                                     "foundation": "strength", "minutes": 15,
                                     "occurred_at": iso(time.time() - 600)}, h)
                    rec.update(status=r.status)
                except ConnectionRefusedError as e:
                    rec["error"] = repr(e)
                    rec["refused"] = True
                except Exception as e:  # noqa: BLE001
                    rec["error"] = repr(e)
                rec["end"] = time.monotonic()
                with lock:
                    records.append(rec)
                if rec.get("refused"):
                    return

        # Slow uploads: the headers and half the body go out before the signal, the rest after,
        # so these requests are certainly in flight when SIGTERM arrives.
        slow_n = 3
        halfway = threading.Barrier(slow_n + 1)
        signalled = threading.Event()

        def slow_upload(u: int) -> None:
            p = people[u % len(people)]
            rid = request_id(f"slow{u}")
            rec = {"op": "slow", "rid": rid, "start": time.monotonic(), "status": None, "batch": f"tbs-{u}"}
            items = [{"external_task_id": f"tbs-{u}-{k}", "task_label": "slow", "foundation": "love",
                      "minutes": 5, "occurred_at": iso(time.time() - 7200)} for k in range(big)]
            body = json.dumps({"items": items}).encode()
            head = (f"POST /integration/task-mappings/batch HTTP/1.1\r\nHost: 127.0.0.1:{svc.port}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                    f"X-API-Key: {p.key}\r\nX-Request-Id: {rid}\r\nConnection: close\r\n\r\n").encode()
            sock = socket.create_connection(("127.0.0.1", svc.port), timeout=60)
            try:
                sock.sendall(head + body[: len(body) // 2])
                # Long enough for the service to have accepted the connection and read the head:
                # a connection still in the kernel's backlog is not in flight yet.
                time.sleep(0.3)
                halfway.wait(30)
                signalled.wait(30)
                time.sleep(0.5)
                sock.sendall(body[len(body) // 2:])
                resp = http.client.HTTPResponse(sock)
                resp.begin()
                resp.read()
                rec["status"] = resp.status
            except Exception as e:  # noqa: BLE001
                rec["error"] = repr(e)
            finally:
                sock.close()
            rec["end"] = time.monotonic()
            with lock:
                records.append(rec)

        threads = [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(8)]
        slow = [threading.Thread(target=slow_upload, args=(u,), daemon=True) for u in range(slow_n)]
        for t in threads:
            t.start()
        time.sleep(3)
        for t in slow:
            t.start()
        halfway.wait(30)
        threads += slow
        t_term = time.monotonic()
        log("SIGTERM to the service under load (3 uploads half sent)")
        svc.proc.send_signal(15)
        signalled.set()
        try:
            code = svc.proc.wait(45)
        except subprocess.TimeoutExpired:
            code = None
        t_exit = time.monotonic()
        for t in threads:
            t.join(60)

        answered = [r for r in records if r["status"] is not None]
        in_flight = [r for r in records if r["start"] < t_term - 0.2 and r["end"] > t_term or r["op"] == "slow"]
        dropped = [r for r in in_flight if r["status"] is None]
        checks.check(code == 0, f"sigterm: the service exits 0 after SIGTERM (got {code}, "
                     f"in {t_exit - t_term:.2f} s)")
        checks.check(bool(in_flight) and not dropped,
                     f"sigterm: requests in flight at SIGTERM finish ({len(in_flight) - len(dropped)} of {len(in_flight)}"
                     + (f"; e.g. {dropped[0]['op']} {dropped[0]['error']}" if dropped else "") + ")")
        late_errors = [r for r in records if r["status"] is None and not r.get("refused") and r not in dropped]
        late_desc = sorted({f"{r['error'].split('(')[0]} at {r['start'] - t_term:+.2f} s" for r in late_errors})
        bad = [r for r in answered if r["status"] >= 300]
        checks.check(not bad, f"sigterm: every answer 2xx ({len(bad)} not"
                     + (f", e.g. {bad[0]['op']} {bad[0]['status']}" if bad else "") + ")")
        rows = psql(url, "SELECT substring(external_task_id from '^(tbs?-[0-9]+(?:-[0-9]+)?)-[0-9]+$'), count(*) "
                         "FROM task_mapping WHERE external_task_id LIKE 'tb%' GROUP BY 1")
        present = {b: int(n) for b, n in (line.split("|") for line in rows.splitlines() if line)}
        acked = {r["batch"] for r in answered if r["op"] in ("batch", "slow") and 200 <= r["status"] < 300}
        partial = {b: n for b, n in present.items() if n != big}
        checks.check(not partial and acked <= present.keys(),
                     f"sigterm: batches all-or-nothing and every acknowledged one stored "
                     f"({len(acked)} acked, {len(present)} stored, {len(partial)} partial)")
        activity = int(psql(url, "SELECT count(*) FROM activity_log"))
        expected = len(answered) + seeded
        checks.check(activity == expected,
                     f"sigterm: activity_log rows ({activity}) == requests answered ({expected}: "
                     f"{seeded} seeding + {len(answered)} under load)")
        figures.append(
            f"sigterm: {len(answered)} answered under load, {len(in_flight)} in flight at SIGTERM "
            f"(all finished: {not dropped}), exit {code} after {t_exit - t_term:.2f} s, "
            f"{len(late_errors)} requests sent around SIGTERM got no answer ({', '.join(late_desc[:4]) or 'none'}; "
            f"not logged, as expected), "
            f"activity rows {activity} / answered {expected}")
    finally:
        svc.close()


def main() -> int:
    parts = [p.strip() for p in (__import__("os").environ.get("FAULTS") or "pg,llm,sigterm").split(",")]
    api, _batch = binaries()
    checks = Checks("faults")
    figures: list[str] = []
    started = time.monotonic()
    cluster = PrivateCluster()
    try:
        cluster.start()
        log(f"private PostgreSQL cluster on 127.0.0.1:{cluster.port} in {cluster.dir}")
        for name, fn in (("pg", fault_pg), ("llm", fault_llm), ("sigterm", fault_sigterm)):
            if name in parts:
                log(f"--- fault: {name}")
                try:
                    fn(cluster, api, checks, figures)
                except Exception as e:  # noqa: BLE001 - one broken part does not hide the others
                    traceback.print_exc()
                    checks.check(False, f"{name}: the scenario itself failed: {e!r}")
                    if not cluster.running:
                        cluster.start()
    finally:
        cluster.close()
    figures.append(f"took {time.monotonic() - started:.0f} s")
    return checks.report(figures)


if __name__ == "__main__":
    main_wrapper(main)
