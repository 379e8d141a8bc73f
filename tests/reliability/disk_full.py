#!/usr/bin/env python3
"""A full disk: the service's SQLite database on a small tmpfs of its own (mounted by this
suite; needs root, or CAP_SYS_ADMIN), filled under load.

  1. A ballast file takes all but DISK_FULL_MARGIN_KIB (512) of the filesystem; clients keep
     sending batch upserts (known ids) until writes are refused.
  2. Checks while full: refused writes answer 507 `storage_full` (never 500, never another
     status); reads (/api/me, work patterns, the profile) answer 200; the process stays up;
     the activity writer neither crashes nor spins (the process's CPU time over an idle
     FULL_IDLE_SECONDS window stays under a fifth of it).
  3. The ballast is removed: writes succeed again without a restart.
  4. After a graceful stop: every acknowledged batch stored whole, no refused batch stored
     even in part, `PRAGMA integrity_check` is `ok`.

Environment: DISK_FULL_SIZE_MIB (24), DISK_FULL_MARGIN_KIB (512), FULL_IDLE_SECONDS (3),
DISCOVERY_API / DISCOVERY_BATCH (else built with cargo).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ left in the tree
from common import (  # noqa: E402
    Checks, Service, Stopper, bearer, binaries, create_key, dev_login, discover, env_int, iso, log,
    main_wrapper, request, request_id,
)

BATCH = 20


class Tmpfs:
    """A fixed-size tmpfs in a temporary directory, unmounted and removed on close."""

    def __init__(self, size_mib: int) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="discovery-full-"))
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mib}m,mode=0755", "tmpfs",
                            str(self.dir)], capture_output=True, text=True)
        if r.returncode != 0:
            self.dir.rmdir()
            raise RuntimeError(f"mounting a {size_mib} MiB tmpfs needs root: {r.stderr.strip()}")
        self.mounted = True

    def free_bytes(self) -> int:
        st = os.statvfs(self.dir)
        return st.f_bavail * st.f_frsize

    def close(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.dir)], capture_output=True)
            self.mounted = False
        with_suppress_rmdir(self.dir)


def with_suppress_rmdir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fill(path: Path, leave: int, fs: Tmpfs) -> int:
    """Writes zeros to `path` until at most `leave` bytes of the filesystem are free."""
    written = 0
    chunk = b"\0" * (256 * 1024)
    with open(path, "wb") as f:
        while fs.free_bytes() > leave:
            n = min(len(chunk), fs.free_bytes() - leave)
            try:
                f.write(chunk[:max(n, 4096)])
                f.flush()
            except OSError:
                break
            written += n
    return written


def run() -> int:
    checks = Checks("disk-full")
    figures: list[str] = []
    api, _batch = binaries()
    size = env_int("DISK_FULL_SIZE_MIB", 24)
    margin = env_int("DISK_FULL_MARGIN_KIB", 512) * 1024
    idle = env_int("FULL_IDLE_SECONDS", 3)
    fs = Tmpfs(size)
    log(f"mounted a {size} MiB tmpfs at {fs.dir}")
    db_path = fs.dir / "discovery.db"
    ballast = fs.dir / "ballast"
    svc = None
    try:
        svc = Service(api, f"sqlite://{db_path}", "api-full")
        person = dev_login(svc.base, "full@example.org")
        create_key(svc.base, person)
        discover(svc.base, person, affirm=False)
        records: list[dict] = []
        lock = threading.Lock()
        stop = Stopper()

        def upsert(tag: str) -> dict:
            items = [{"external_task_id": f"{tag}-{k}", "task_label": "full disk",
                      "foundation": "mission", "minutes": 5 + k,
                      "occurred_at": iso(time.time() - 3600)} for k in range(BATCH)]
            rec = {"batch": tag, "start": time.monotonic(), "status": None}
            try:
                r = request(svc.base, "POST", "/integration/task-mappings/batch", {"items": items},
                            {"X-API-Key": person.key, "X-Request-Id": request_id("full")})
                rec.update(status=r.status, code=r.code, message=(r.json() or {}).get("error", {}).get("message"))
            except Exception as e:  # noqa: BLE001 - every transport failure is a finding
                rec["error"] = repr(e)
            rec["end"] = time.monotonic()
            with lock:
                records.append(rec)
            return rec

        def worker(w: int) -> None:
            n = 0
            while not stop:
                n += 1
                upsert(f"fb-{w}-{n}")

        log(f"filling the filesystem to {margin // 1024} KiB free")
        filled = fill(ballast, margin, fs)
        figures.append(f"ballast {filled / 2**20:.1f} MiB; {fs.free_bytes() // 1024} KiB left free")
        threads = [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(4)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with lock:
                full = sum(1 for r in records if r["status"] == 507)
            if full >= 20:
                break
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join(60)
        t_full = time.monotonic()
        refused = [r for r in records if r["status"] == 507]
        acked = [r for r in records if r["status"] is not None and 200 <= r["status"] < 300]
        others = [r for r in records if r["status"] is None or not (r["status"] == 507 or 200 <= r["status"] < 300)]
        checks.check(len(refused) >= 20, f"writes on the full disk answer 507 ({len(refused)} of {len(records)}, "
                     f"{len(acked)} acknowledged before and between)")
        checks.check(not others, f"no status but 2xx or 507, no transport error ({len(others)}"
                     + (f", e.g. {others[0].get('status')} {others[0].get('code')} {others[0].get('error', '')}"
                        if others else "") + ")")
        checks.check(all(r["code"] == "storage_full" for r in refused), "every 507 carries code `storage_full`")
        checks.check(all("nothing was changed" in (r.get("message") or "") for r in refused),
                     f"the 507 message says nothing was changed ({refused[0].get('message') if refused else '-'})")

        # -- while full: reads, one more write, the process, the activity writer
        reads = {
            "/api/me": bearer(person.access),
            "/integration/work-patterns?days=14": {"X-API-Key": person.key},
            "/discovery/profile/me": bearer(person.access),
        }
        for path, h in reads.items():
            r = request(svc.base, "GET", path, None, h)
            checks.check(r.status == 200, f"while full, GET {path} answers 200 (got {r.status} {r.code})")
        one = upsert("fb-while-full")
        checks.check(one["status"] == 507, f"while full, a write still answers 507 (got {one['status']})")
        cpu0 = cpu_seconds(svc.pid)
        time.sleep(idle)
        busy = cpu_seconds(svc.pid) - cpu0
        checks.check(busy < idle / 5, f"idle on the full disk, the process used {busy:.2f} s of CPU in {idle} s "
                     "(the activity writer does not spin)")
        checks.check(svc.proc.poll() is None, "the process is still running on the full disk")
        lost_lines = svc.log_text().count("activity batch lost")
        figures.append(f"activity batches given up while full: {lost_lines} (logged, never retried in a loop)")

        # -- space freed: writes work again without a restart
        ballast.unlink()
        t_freed = time.monotonic()
        recovered = None
        while time.monotonic() < t_freed + 30:
            r = upsert(f"fb-after-{int((time.monotonic() - t_freed) * 1000)}")
            if r["status"] is not None and 200 <= r["status"] < 300:
                recovered = time.monotonic() - t_freed
                break
            time.sleep(0.2)
        checks.check(recovered is not None, f"after the space is freed, writes succeed again without a restart "
                     f"(first success {recovered if recovered is not None else float('nan'):.2f} s after)")
        for n in range(10):
            upsert(f"fb-later-{n}")
        checks.check(svc.proc.poll() is None and svc.pid == svc.proc.pid, "the same process throughout")
        code = svc.terminate()
        checks.check(code == 0, f"graceful stop exits 0 (got {code})")

        # -- the file: whole batches, nothing refused stored, integrity
        con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            integrity = con.execute("PRAGMA integrity_check").fetchall()
            rows = con.execute(
                "SELECT external_task_id FROM task_mapping WHERE external_task_id LIKE 'fb-%'").fetchall()
        finally:
            con.close()
        present: dict[str, int] = {}
        for (ext,) in rows:
            present[ext.rsplit("-", 1)[0]] = present.get(ext.rsplit("-", 1)[0], 0) + 1
        checks.check(integrity == [("ok",)], f"PRAGMA integrity_check: {integrity[:3]}")
        partial = {b: n for b, n in present.items() if n != BATCH}
        checks.check(not partial, f"no batch partial ({len(present)} stored; partial: {partial or 'none'})")
        all_acked = {r["batch"] for r in records if r["status"] is not None and 200 <= r["status"] < 300}
        lost = all_acked - present.keys()
        checks.check(not lost, f"every acknowledged batch stored ({len(all_acked)} acknowledged; lost: "
                     f"{sorted(lost)[:5] or 'none'})")
        all_refused = {r["batch"] for r in records if r["status"] == 507}
        stored_refused = all_refused & present.keys()
        checks.check(not stored_refused, f"no refused batch stored ({len(all_refused)} refused; stored: "
                     f"{sorted(stored_refused)[:5] or 'none'})")
        figures.append(f"{len(records)} batch upserts: {len(all_acked)} acknowledged, {len(all_refused)} "
                       f"answered 507; recovery after freeing space {recovered or 0:.2f} s; filled in "
                       f"{t_full - (records[0]['start'] if records else t_full):.1f} s")
    finally:
        if svc is not None:
            svc.close()
        fs.close()
    return checks.report(figures)


if __name__ == "__main__":
    main_wrapper(run)
