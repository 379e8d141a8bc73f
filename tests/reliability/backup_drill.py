#!/usr/bin/env python3
"""The restore drill, on SQLite and on PostgreSQL: back up under load, restore into a fresh
instance, start the service on it, and check what came back.

Per backend:
  1. `DRILL_PEOPLE` (4) people sign in, answer the seven prompts, complete and affirm, and get
     an API key; `DRILL_WORKERS` (4) clients then send batch upserts (known ids) without pause.
  2. After `DRILL_LEAD_SECONDS` (2) of load, the backup, while the load goes on:
     SQLite `discovery-batch backup --to FILE`; PostgreSQL `pg_dump --format=custom`.
  3. The load stops a second after the backup; the first service stops.
  4. Restore (timed: the recovery time): SQLite `discovery-batch verify FILE`, the file copied
     into a new directory; PostgreSQL a new database and `pg_restore --no-owner`. Then a new
     `discovery-api` on it, until `/readyz` answers 200.
  5. Checks: every batch acknowledged before the backup began is there, whole; no batch is
     partial; each person signs in again (dev login: the same account id), their profile reads
     as before (affirmed, the same version) and their work patterns' total equals the minutes
     stored for them. The recovery point is measured as how many batches acknowledged during the
     backup made it in.

Environment: DRILL_BACKENDS (sqlite,postgres), DRILL_PEOPLE, DRILL_WORKERS, DRILL_LEAD_SECONDS,
TEST_DATABASE_URL (the shared server: fresh databases only, dropped after), DISCOVERY_API /
DISCOVERY_BATCH (else built with cargo).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ left in the tree
from common import (  # noqa: E402
    Checks, Service, SharedDatabase, Stopper, bearer, binaries, create_key, dev_login, discover,
    env_float, env_int, iso, log, main_wrapper, psql, request, request_id,
)

BATCH = 5


def load(svc: Service, people: list, workers: int, records: list, lock: threading.Lock,
         stop: Stopper) -> list[threading.Thread]:
    def worker(w: int) -> None:
        p = people[w % len(people)]
        n = 0
        while not stop:
            n += 1
            tag = f"dr-{w}-{n}"
            items = [{"external_task_id": f"{tag}-{k}", "task_label": "drill", "foundation": "love",
                      "minutes": 1 + k, "occurred_at": iso(time.time() - 3600)} for k in range(BATCH)]
            rec = {"batch": tag, "user": p.user_id, "start": time.monotonic(), "status": None}
            try:
                r = request(svc.base, "POST", "/integration/task-mappings/batch", {"items": items},
                            {"X-API-Key": p.key, "X-Request-Id": request_id("drill")})
                rec["status"] = r.status
            except Exception as e:  # noqa: BLE001 - every transport failure is a finding
                rec["error"] = repr(e)
            rec["end"] = time.monotonic()
            with lock:
                records.append(rec)

    threads = [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(workers)]
    for t in threads:
        t.start()
    return threads


def batch_cmd(binary: str, url: str, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": url, "RUST_LOG": "warn"}
    return subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=300,
                          cwd=tempfile.gettempdir())


def drill(backend: str, api: str, batch: str, checks: Checks, figures: list[str]) -> None:
    tag = f"{backend}:"
    work = Path(tempfile.mkdtemp(prefix=f"discovery-drill-{backend}-"))
    dbs: list[SharedDatabase] = []
    services: list[Service] = []
    try:
        if backend == "sqlite":
            source_url = f"sqlite://{work / 'live' / 'discovery.db'}"
        else:
            dbs.append(SharedDatabase("drill_live", suite="reliability"))
            source_url = dbs[-1].url
        svc = Service(api, source_url, f"drill-{backend}-live")
        services.append(svc)
        people = []
        for i in range(env_int("DRILL_PEOPLE", 4)):
            p = dev_login(svc.base, f"drill{i}@example.org")
            create_key(svc.base, p)
            discover(svc.base, p, affirm=True)
            prof = request(svc.base, "GET", "/discovery/profile/me", None, bearer(p.access)).json()
            p.minutes["profile"] = (prof["version"], prof["locked"])
            people.append(p)
        records: list[dict] = []
        lock, stop = threading.Lock(), Stopper()
        threads = load(svc, people, env_int("DRILL_WORKERS", 4), records, lock, stop)
        time.sleep(env_float("DRILL_LEAD_SECONDS", 2))

        dump = work / ("backup.db" if backend == "sqlite" else "backup.dump")
        t_begin = time.monotonic()
        if backend == "sqlite":
            r = batch_cmd(batch, source_url, "backup", "--to", str(dump))
        else:
            r = subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", source_url],
                               capture_output=True, text=True, timeout=300)
        t_end = time.monotonic()
        checks.check(r.returncode == 0, f"{tag} the backup under load succeeded ({r.stdout.strip()[:300]}"
                     f"{r.stderr.strip()[:300]})")
        if backend == "sqlite" and r.returncode == 0:
            report = json.loads(r.stdout)["report"]
            figures.append(f"{tag} backup {report['bytes'] / 2**20:.2f} MiB in {report['seconds']:.3f} s; "
                           f"rows: users {report['tables'].get('users')}, task_mapping "
                           f"{report['tables'].get('task_mapping')}, activity_log {report['tables'].get('activity_log')}")
        time.sleep(1.0)
        stop.set()
        for t in threads:
            t.join(60)
        code = svc.terminate()
        checks.check(code == 0, f"{tag} the live service stops gracefully (exit {code})")

        # -- restore into a fresh instance; the recovery time runs from here to /readyz 200
        t_restore = time.monotonic()
        if backend == "sqlite":
            v = batch_cmd(batch, "sqlite://unused.db", "verify", str(dump))
            checks.check(v.returncode == 0 and json.loads(v.stdout)["report"]["integrity"] == "ok",
                         f"{tag} discovery-batch verify: {v.stdout.strip()[:300]}")
            restored_dir = work / "restored"
            restored_dir.mkdir()
            shutil.copy2(dump, restored_dir / "discovery.db")
            restored_url = f"sqlite://{restored_dir / 'discovery.db'}"
        else:
            dbs.append(SharedDatabase("drill_restored", suite="reliability"))
            restored_url = dbs[-1].url
            pr = subprocess.run(["pg_restore", "--no-owner", f"--dbname={restored_url}", str(dump)],
                                capture_output=True, text=True, timeout=300)
            checks.check(pr.returncode == 0, f"{tag} pg_restore into a fresh database ({pr.stderr.strip()[:300]})")
        fresh = Service(api, restored_url, f"drill-{backend}-restored")
        services.append(fresh)
        ready = request(fresh.base, "GET", "/readyz")
        rto = time.monotonic() - t_restore
        checks.check(ready.status == 200, f"{tag} the restored instance is ready ({ready.status})")

        # -- what came back
        if backend == "sqlite":
            con = sqlite3.connect(f"file:{restored_dir / 'discovery.db'}?mode=ro", uri=True)
            rows = con.execute("SELECT external_task_id, user_id, minutes FROM task_mapping "
                               "WHERE external_task_id LIKE 'dr-%'").fetchall()
            con.close()
        else:
            rows = [tuple(line.split("|")) for line in psql(
                restored_url, "SELECT external_task_id, user_id, minutes FROM task_mapping "
                              "WHERE external_task_id LIKE 'dr-%'").splitlines() if line]
        present: dict[str, int] = {}
        minutes: dict[str, int] = {}
        for ext, user, m in rows:
            b = ext.rsplit("-", 1)[0]
            present[b] = present.get(b, 0) + 1
            minutes[str(user)] = minutes.get(str(user), 0) + int(m)
        acked = [r for r in records if r["status"] is not None and 200 <= r["status"] < 300]
        errors = [r for r in records if r["status"] is None or not 200 <= r["status"] < 300]
        checks.check(not errors, f"{tag} every write under load answered 2xx ({len(errors)} others)")
        before = {r["batch"] for r in acked if r["end"] < t_begin}
        missing = before - present.keys()
        checks.check(bool(before) and not missing,
                     f"{tag} every batch acknowledged before the backup began is restored "
                     f"({len(before) - len(missing)} of {len(before)})")
        partial = {b: n for b, n in present.items() if n != BATCH}
        checks.check(not partial, f"{tag} no batch partial in the restored copy ({partial or 'none'})")
        during = [r for r in acked if r["end"] >= t_begin and r["start"] <= t_end]
        during_in = sum(1 for r in during if r["batch"] in present)
        after = [r for r in acked if r["start"] > t_end]
        after_in = sum(1 for r in after if r["batch"] in present)
        checks.check(after_in == 0, f"{tag} nothing sent after the backup ended is in it ({after_in})")
        for p in people:
            again = dev_login(fresh.base, p.email)
            checks.check(again.user_id == p.user_id, f"{tag} {p.email} signs in to the same account")
            prof = request(fresh.base, "GET", "/discovery/profile/me", None, bearer(again.access))
            body = prof.json() or {}
            checks.check(prof.status == 200 and (body.get("version"), body.get("locked")) == p.minutes["profile"],
                         f"{tag} {p.email}'s profile reads as before (version, locked {p.minutes['profile']})")
            wp = request(fresh.base, "GET", "/integration/work-patterns?days=14", None, bearer(again.access))
            total = (wp.json() or {}).get("total_minutes")
            checks.check(wp.status == 200 and total == minutes.get(p.user_id, 0),
                         f"{tag} {p.email}'s work patterns: {total} minutes = {minutes.get(p.user_id, 0)} stored")
        figures.append(
            f"{tag} {len(acked)} batches acknowledged; {len(before)} before the backup began, all "
            f"restored; backup took {t_end - t_begin:.2f} s, {during_in} of the {len(during)} acknowledged "
            f"during it are in the copy (the snapshot's instant lies within it); recovery time "
            f"(verify/restore + start to ready) {rto:.2f} s")
    finally:
        for s in services:
            s.close()
        for d in dbs:
            d.close()
        shutil.rmtree(work, ignore_errors=True)


def run() -> int:
    checks = Checks("backup-drill")
    figures: list[str] = []
    api, batch = binaries()
    for backend in [b.strip() for b in (os.environ.get("DRILL_BACKENDS") or "sqlite,postgres").split(",") if b.strip()]:
        log(f"drill on {backend}")
        drill(backend, api, batch, checks, figures)
    return checks.report(figures)


if __name__ == "__main__":
    main_wrapper(run)
