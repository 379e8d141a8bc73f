#!/usr/bin/env python3
"""Scale-out suite: two `discovery-api` instances (A and B, the same JWT_SECRET) on two ports
against one fresh PostgreSQL database on the shared server (created here, dropped afterwards).

  1. SCALE_PEOPLE people sign in by dev login and finish discovery, their requests alternating
     between A and B; most affirm their profile, some do not.
  2. For DURATION seconds (default 60) workers, each owning one person, alternate between the
     instances: task-mapping upserts (single, with repeats, and batches), work-pattern reads on
     the OTHER instance (the total must equal what the client wrote: no lost write, read-your-
     writes across instances), /api/me, and refresh rotation across instances (refresh on A, then
     on B with the new token; the old token is refused, which revokes the session everywhere).
  3. Two `discovery-batch checkins` at once: exactly one check-in per due person; a third run
     creates none.

Checks: no 5xx, no unexpected 4xx, no duplicates, no lost writes (counts against the client's).
Environment: DURATION (60), SCALE_WORKERS (6), SCALE_PEOPLE (120), TEST_DATABASE_URL (the shared
server's admin URL), DISCOVERY_API / DISCOVERY_BATCH (else built with cargo).
"""

from __future__ import annotations

import sys
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ left in the tree
from common import (  # noqa: E402
    ANSWERS, KEY_SCOPES, Checks, Person, Service, SharedDatabase, binaries, browser, dev_login,
    env_int, iso, log, main_wrapper, psql, request, run_batch,
)


def main() -> int:
    duration = env_int("DURATION", 60)
    workers = env_int("SCALE_WORKERS", 6)
    people_n = max(env_int("SCALE_PEOPLE", 120), workers + 4)
    api, batch = binaries()
    checks = Checks("scale-out")
    figures: list[str] = []
    started = time.monotonic()
    db = SharedDatabase("scale")
    services: list[Service] = []
    try:
        # No refresh grace: the run re-uses rotated tokens on purpose, right away, and counts on
        # each re-use revoking the session (the grace window itself is tested in the API suite).
        no_grace = {"REFRESH_REUSE_GRACE_SECONDS": "0"}
        a = Service(api, db.url, "api-a", extra=no_grace)
        services.append(a)
        b = Service(api, db.url, "api-b", extra=no_grace, workdir=a.workdir)
        services.append(b)
        insts = [a.base, b.base]
        log(f"A {a.base}, B {b.base}, database {db.name}")

        unexpected: list[str] = []
        counts = {"requests": 0, "5xx": 0}
        lock = threading.Lock()

        def call(base, method, path, body=None, headers=None, expect=(200,), what=""):
            r = request(base, method, path, body, headers)
            with lock:
                counts["requests"] += 1
                if r.status >= 500:
                    counts["5xx"] += 1
                if r.status not in expect:
                    unexpected.append(f"{what or path} on {'A' if base == a.base else 'B'}: "
                                      f"{r.status} {r.code} (expected {expect})")
            return r

        # -- 1. people, alternating instances request by request
        affirmed_n = people_n - max(4, people_n // 10)

        def onboard(i: int) -> Person:
            alt = [insts[i % 2], insts[(i + 1) % 2]]
            p = dev_login(alt[0], f"scale{i}@example.org")
            h = {"Authorization": f"Bearer {p.access}"}
            call(alt[1], "POST", "/discovery/conversation", None, h, (201,), "start")
            for step, text in ANSWERS.items():
                call(alt[step % 2], "PUT", f"/discovery/conversation/me/answers/{step}", {"text": text}, h,
                     what="answer")
            if i < affirmed_n or i % 2:
                call(alt[0], "POST", "/discovery/conversation/me/complete", None, h, (201,), "complete")
            if i < affirmed_n:
                call(alt[1], "POST", "/discovery/profile/me/affirm", None, h, what="affirm")
            k = call(alt[1], "POST", "/api/me/api-keys", {"name": "scale", "scopes": KEY_SCOPES},
                     browser(alt[1], p.access), (201,), "api key")
            p.key = k.json()["key"] if k.status == 201 else ""
            return p

        t0 = time.monotonic()
        with ThreadPoolExecutor(8) as pool:
            people = list(pool.map(onboard, range(people_n)))
        onboard_s = time.monotonic() - t0
        log(f"{people_n} people signed in and onboarded in {onboard_s:.1f} s "
            f"({affirmed_n} affirmed)")

        # -- 2. the load
        stop = threading.Event()
        stats = {"upserts": 0, "batches": 0, "reads": 0, "me": 0, "rotations": 0, "stale_reads": 0}
        stale: list[str] = []

        def refresh(base, token):
            return request(base, "POST", "/api/auth/refresh", None,
                           {"Cookie": f"ds_refresh={token}", "Origin": base})

        def rotation(p: Person, n: int) -> None:
            first = insts[n % 2]
            second = insts[(n + 1) % 2]
            s = dev_login(second, p.email)
            r1 = call(first, "POST", "/api/auth/refresh", None,
                      {"Cookie": f"ds_refresh={s.refresh}", "Origin": first}, (204,), "refresh #1")
            t1 = r1.cookies().get("ds_refresh", "")
            r2 = call(second, "POST", "/api/auth/refresh", None,
                      {"Cookie": f"ds_refresh={t1}", "Origin": second}, (204,), "refresh #2 with the new token")
            t2, acc2 = r2.cookies().get("ds_refresh", ""), r2.cookies().get("ds_access", "")
            call(first, "GET", "/api/me", None, {"Authorization": f"Bearer {acc2}"}, what="access from the other instance")
            # re-use of a rotated token, on either instance: refused, and the session is revoked
            call(insts[n // 10 % 2], "POST", "/api/auth/refresh", None,
                 {"Cookie": f"ds_refresh={t1}", "Origin": insts[n // 10 % 2]}, (401,), "re-used refresh token")
            call(first, "POST", "/api/auth/refresh", None,
                 {"Cookie": f"ds_refresh={t2}", "Origin": first}, (401,), "latest token of a revoked session")
            with lock:
                stats["rotations"] += 1

        def worker(w: int) -> None:
            p = people[w]
            key = {"X-API-Key": p.key}
            n = 0
            while not stop.is_set():
                n += 1
                wbase, rbase = insts[n % 2], insts[(n + 1) % 2]
                ext = f"so-{w}-{n % 40}"
                minutes = (n * 7) % 240
                first = ext not in p.minutes
                r = call(wbase, "POST", "/integration/task-mappings",
                         {"external_task_id": ext, "task_label": f"task {n}", "foundation": "vocation",
                          "minutes": minutes, "occurred_at": iso(time.time() - 120 - n % 500)},
                         key, (201,) if first else (200,), "upsert")
                if r.status in (200, 201):
                    p.minutes[ext] = minutes
                if n % 7 == 0:
                    items = [{"external_task_id": f"sob-{w}-{n}-{k}", "task_label": None, "foundation": "love",
                              "minutes": k, "occurred_at": iso(time.time() - 300)} for k in range(10)]
                    r = call(wbase, "POST", "/integration/task-mappings/batch", {"items": items}, key,
                             what="batch upsert")
                    if r.status == 200:
                        for it in items:
                            p.minutes[it["external_task_id"]] = it["minutes"]
                        if r.json() != {"created": 10, "updated": 0}:
                            unexpected.append(f"batch answer {r.json()}")
                r = call(rbase, "GET", "/integration/work-patterns?days=14", None, key, what="work patterns")
                if r.status == 200:
                    total = r.json()["total_minutes"]
                    if total != sum(p.minutes.values()):
                        with lock:
                            stale.append(f"worker {w}: read {total}, wrote {sum(p.minutes.values())}")
                if n % 5 == 0:
                    call(rbase, "GET", "/api/me", None, {"Authorization": f"Bearer {p.access}"}, what="me")
                if n % 10 == 0:
                    rotation(p, n)
                with lock:
                    stats["upserts"] += 1
                    stats["reads"] += 1
                    stats["batches"] += n % 7 == 0
                    stats["me"] += n % 5 == 0

        def guarded(w: int) -> None:
            try:
                worker(w)
            except Exception as e:  # noqa: BLE001 - a transport failure is a finding
                with lock:
                    unexpected.append(f"worker {w} stopped: {e!r}")

        threads = [threading.Thread(target=guarded, args=(w,), daemon=True) for w in range(workers)]
        onboard_requests = counts["requests"]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(duration)
        stop.set()
        for t in threads:
            t.join(60)
        load_s = time.monotonic() - t0

        checks.check(counts["5xx"] == 0, f"no 5xx over {counts['requests']} requests ({counts['5xx']})")
        checks.check(not unexpected, f"no unexpected status ({len(unexpected)}"
                     + (f"; e.g. {unexpected[:3]}" if unexpected else "") + ")")
        checks.check(not stale, f"work patterns on the other instance always include every "
                     f"acknowledged write ({len(stale)} stale" + (f"; e.g. {stale[:2]}" if stale else "") + ")")
        checks.check(stats["rotations"] > 0, f"refresh rotations across instances: {stats['rotations']}")
        # task mappings: one row per distinct external id the client wrote, minutes as last written
        rows = psql(db.url, "SELECT u.email, count(t.id), coalesce(sum(t.minutes), 0) FROM users u "
                            "LEFT JOIN task_mapping t ON t.user_id = u.id GROUP BY u.email")
        stored = {e: (int(c), int(m)) for e, c, m in (line.split("|") for line in rows.splitlines() if line)}
        wrong = [f"{p.email}: stored {stored.get(p.email)}, client {len(p.minutes)} ids / {sum(p.minutes.values())} min"
                 for p in people if stored.get(p.email, (0, 0)) != (len(p.minutes), sum(p.minutes.values()))]
        written = sum(len(p.minutes) for p in people)
        checks.check(not wrong, f"task mappings: rows == distinct external ids written ({written}) and "
                     f"minutes == last written, per person ({len(wrong)} differ" + (f"; {wrong[:2]}" if wrong else "") + ")")
        dupes = psql(db.url, "SELECT count(*) FROM (SELECT user_id, external_task_id FROM task_mapping "
                             "GROUP BY 1, 2 HAVING count(*) > 1) d")
        checks.check(dupes == "0", f"no duplicate (user, external id) rows ({dupes})")

        # -- 3. two check-in runs at once
        due = int(psql(db.url, "SELECT count(*) FROM discovery_profile WHERE locked"))
        t0 = time.monotonic()
        procs = [run_batch(batch, db.url, "checkins", Path(a.workdir)) for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        batch_s = time.monotonic() - t0
        reports = []
        for p, (out, err) in zip(procs, outs):
            line = out.strip().splitlines()[-1] if out.strip() else "{}"
            rep = json.loads(line)
            reports.append(rep)
            checks.check(p.returncode == 0 and rep.get("ok") is True,
                         f"checkins run exits 0 with ok (exit {p.returncode}: {line[:160]} {err.strip()[:200]})")
        created = sum(r.get("report", {}).get("created", 0) for r in reports)
        checks.check(created == due, f"two runs at once created {created} check-ins for {due} due people "
                     f"({[r.get('report') for r in reports]})")
        per = psql(db.url, "SELECT coalesce(max(n), 0) || '|' || count(*) FROM (SELECT user_id, count(*) AS n "
                           "FROM coaching_checkin GROUP BY user_id) c")
        most, users_with = (int(x) for x in per.split("|"))
        checks.check(most == 1 and users_with == due,
                     f"exactly one check-in per due person ({users_with} people have one; at most {most} each)")
        stray = psql(db.url, "SELECT count(*) FROM coaching_checkin c JOIN discovery_profile p "
                             "ON p.user_id = c.user_id WHERE NOT p.locked")
        checks.check(stray == "0", f"no check-in for a person whose profile is not affirmed ({stray})")
        third = run_batch(batch, db.url, "checkins", Path(a.workdir))
        out, _ = third.communicate(timeout=300)
        rep = json.loads(out.strip().splitlines()[-1])
        checks.check(rep.get("report", {}).get("created") == 0, f"a third run creates none ({rep.get('report')})")

        rss = {s.name: s.peak_rss_kib() // 1024 for s in services}
        figures += [
            f"{people_n} people onboarded across A/B in {onboard_s:.1f} s ({affirmed_n} affirmed, "
            f"{onboard_requests} requests besides the dev logins)",
            f"load {load_s:.0f} s with {workers} workers: {counts['requests'] - onboard_requests} requests "
            f"({(counts['requests'] - onboard_requests) / load_s:.0f}/s), {stats['upserts']} upserts, "
            f"{stats['batches']} batches, {stats['reads']} cross-instance pattern reads, "
            f"{stats['rotations']} refresh rotations A<->B; 5xx {counts['5xx']}, unexpected {len(unexpected)}",
            f"task mappings: {written} distinct written, {sum(c for c, _ in stored.values())} stored",
            f"check-ins: 2 concurrent runs created {[r.get('report', {}).get('created') for r in reports]} "
            f"= {created} for {due} due in {batch_s:.2f} s; third run created {rep.get('report', {}).get('created')}",
            f"peak RSS MiB {rss}",
        ]
        for s in services:
            code = s.terminate()
            checks.check(code == 0, f"{s.name} stops gracefully (exit {code})")
    finally:
        for s in services:
            s.close()
        db.close()
    figures.append(f"took {time.monotonic() - started:.0f} s")
    return checks.report(figures)


if __name__ == "__main__":
    main_wrapper(main)
