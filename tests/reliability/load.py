#!/usr/bin/env python3
"""Load suite: wrk (Debian package, installed when missing) on loopback against the main routes
of `discovery-api`, bounded in time, on SQLite and PostgreSQL, each beside a raw-database
baseline taken in the same run; writes a report (JSON and markdown).

Routes (LOAD_CONNECTIONS=64 connections, 2 wrk threads, LOAD_SECONDS=10 each):
  GET  /healthz                          (the HTTP floor: no database)
  GET  /api/me                           Bearer JWT
  POST /integration/task-mappings        API key, a new external id per request (Lua script)
  GET  /integration/work-patterns?days=14 API key, over LOAD_SEED_ROWS mappings of the person
  GET  /discovery/profile/me             Bearer JWT

Raw baselines (the same SQL straight on the same database, each right after its route, while
the service idles; the upserts and raw INSERTs are dated 30 days back, outside the read window):
  postgres  pgbench, a custom script: the same single-row INSERT INTO task_mapping, the same
            14-day GROUP BY aggregate, and the same SELECT of the person's profile row, each as
            a prepared statement (as the service sends them), on LOAD_DB_CONNECTIONS clients
            (the service's pool size)
  sqlite    python3's sqlite3 module, one connection with the service's pragmas (SQLite has one
            writer): the same INSERT (autocommit), the same aggregate and the same profile
            SELECT, back to back

Peak RSS of the service is VmHWM from /proc/<pid>/status after all its runs; target
<= LOAD_RSS_LIMIT_MB (150) at 64 connections (pass/fail).

Environment: LOAD_SECONDS (10), LOAD_CONNECTIONS (64), LOAD_DB_CONNECTIONS (16),
LOAD_SEED_ROWS (20000), LOAD_BACKENDS (sqlite,postgres), LOAD_RSS_LIMIT_MB (150),
LOAD_ROUTES (a comma-separated list of words; only the routes whose name contains one run),
LOAD_REPORT_DIR ($CARGO_TARGET_DIR/reliability), TEST_DATABASE_URL (the shared server),
DISCOVERY_API / DISCOVERY_BATCH (else built with cargo; RELIABILITY_PROFILE=debug|release).
"""

from __future__ import annotations

import sys
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ left in the tree
from common import (  # noqa: E402
    TARGET, Checks, Service, SharedDatabase, binaries, binary_profile, create_key, dev_login,
    discover, env_int, log, main_wrapper, percentile, proc_status_kib, psql,
)

FOUNDATIONS = ["love", "strength", "mission", "vocation", "short_term", "long_term"]

INSERT_PG = ("INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, minutes, "
             "occurred_at, created_at, updated_at) VALUES (gen_random_uuid()::text, :uid, "
             "'raw-' || gen_random_uuid()::text, 'bench', 'vocation', 'client', 25, "
             "(now() AT TIME ZONE 'UTC') - interval '30 days', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC');")
ROLLUP_PG = ("SELECT CAST(occurred_at AS DATE) AS day, foundation, SUM(minutes) FROM task_mapping "
             "WHERE user_id = :uid AND occurred_at > (now() AT TIME ZONE 'UTC') - interval '14 days' "
             "AND occurred_at <= now() AT TIME ZONE 'UTC' GROUP BY 1, 2;")
INSERT_SQLITE = ("INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, minutes, "
                 "occurred_at, created_at, updated_at) VALUES (?, ?, ?, 'bench', 'vocation', 'client', 25, ?, ?, ?)")
ROLLUP_SQLITE = ("SELECT date(occurred_at) AS day, foundation, SUM(minutes) FROM task_mapping "
                 "WHERE user_id = ? AND occurred_at > ? AND occurred_at <= ? GROUP BY 1, 2")
# The profile read: the row `GET /discovery/profile/me` loads (every column, by user).
PROFILE_PG = "SELECT * FROM discovery_profile WHERE user_id = :uid LIMIT 1;"
PROFILE_SQLITE = "SELECT * FROM discovery_profile WHERE user_id = ? LIMIT 1"
SQLITE_PRAGMAS = ("PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; "
                  "PRAGMA synchronous = NORMAL; PRAGMA mmap_size = 268435456;")

LUA = r"""local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
function request()
  n = n + 1
  local body = string.format('{"external_task_id":"wrk-%s-%d-%d","task_label":"load","foundation":"vocation","minutes":25,"occurred_at":"%s"}', tag, tid, n, at)
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["X-API-Key"] = key}, body)
end
"""


def ensure_wrk() -> None:
    if shutil.which("wrk"):
        return
    log("wrk is missing: apt-get install -y wrk")
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True)


def seconds_of(v: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", v.strip())
    if not m:
        raise ValueError(f"wrk latency {v!r}")
    return float(m.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[m.group(2)]


def wrk(url: str, seconds: int, conns: int, headers: list[str], script: Path | None = None) -> dict:
    cmd = ["wrk", f"-t{min(2, conns)}", f"-c{conns}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    for h in headers:
        cmd += ["-H", h]
    if script:
        cmd += ["-s", str(script)]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, timeout=seconds + 60)
    text = out.stdout
    if out.returncode != 0:
        raise RuntimeError(f"wrk failed: {text}{out.stderr}")
    lat = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)\s*$", text, re.M))
    if "50" not in lat or "99" not in lat:
        raise RuntimeError(f"wrk printed no latency distribution for {url}:\n{text}")
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    total = re.search(r"(\d+) requests in", text)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
        "p50_ms": seconds_of(lat["50"]) * 1e3,
        "p99_ms": seconds_of(lat["99"]) * 1e3,
        "requests": int(total.group(1)) if total else 0,
        "non_2xx": int(non2xx.group(1)) if non2xx else 0,
        "socket_errors": dict(zip(("connect", "read", "write", "timeout"),
                                  map(int, socket.groups()))) if socket else {},
    }


def pgbench(url: str, sql: str, uid: str, seconds: int, clients: int, work: Path, tag: str) -> dict:
    """Runs `sql` as a prepared statement (`-M prepared`, `:uid` its parameter), as the service
    sends it: diesel prepares each statement once per connection, then only binds and executes
    it. pgbench's default simple protocol parses and plans every statement again, a slower
    baseline that would flatter the route."""
    script = work / f"{tag}.sql"
    script.write_text(sql + "\n")
    logdir = work / f"pgbench-{tag}"
    logdir.mkdir()
    out = subprocess.run(
        ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(min(2, clients)), "-T", str(seconds),
         "-f", str(script), "-D", f"uid={uid}", "-l", "--log-prefix", str(logdir / "log"), url],
        capture_output=True, text=True, timeout=seconds + 60)
    if out.returncode != 0:
        raise RuntimeError(f"pgbench failed: {out.stdout}{out.stderr}")
    tps = float(re.search(r"tps = ([\d.]+) \(without initial connection time\)", out.stdout).group(1))
    lat = []
    for f in logdir.iterdir():
        for line in f.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3:
                lat.append(int(parts[2]) / 1e3)
    return {"rps": tps, "p50_ms": percentile(lat, 50), "p99_ms": percentile(lat, 99), "requests": len(lat)}


def sqlite_path(url: str) -> str:
    return url.removeprefix("sqlite://")


def sqlite_time(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts))


def sqlite_raw(path: str, sql: str, params, seconds: int) -> dict:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    conn.executescript(SQLITE_PRAGMAS)
    lat = []
    deadline = time.monotonic() + seconds
    n = 0
    started = time.monotonic()
    while time.monotonic() < deadline:
        n += 1
        t = time.monotonic()
        conn.execute(sql, params(n)).fetchall()
        lat.append((time.monotonic() - t) * 1e3)
    conn.close()
    return {"rps": len(lat) / (time.monotonic() - started), "p50_ms": percentile(lat, 50),
            "p99_ms": percentile(lat, 99), "requests": len(lat)}


def seed(backend: str, url: str, uid: str, rows: int) -> None:
    """`rows` mappings of the person over the last 90 days (newest a minute ago)."""
    end = int(time.time()) - 60
    step = max(1, 90 * 86400 // max(rows, 1))
    if backend == "postgres":
        psql(url, f"""INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, minutes,
                   occurred_at, created_at, updated_at)
            SELECT gen_random_uuid()::text, '{uid}', 'seed-' || g, NULL,
                   (ARRAY['love','strength','mission','vocation','short_term','long_term'])[1 + g % 6],
                   'client', (g * 37) % 241, to_timestamp({end} - g * {step}) AT TIME ZONE 'UTC',
                   to_timestamp({end}) AT TIME ZONE 'UTC', to_timestamp({end}) AT TIME ZONE 'UTC'
            FROM generate_series(0, {rows - 1}) AS g; ANALYZE task_mapping;""", timeout=300)
    else:
        import uuid
        conn = sqlite3.connect(sqlite_path(url), timeout=30)
        conn.executescript(SQLITE_PRAGMAS)
        now = sqlite_time(end)
        with conn:
            conn.executemany(INSERT_SQLITE.replace("'bench', 'vocation', 'client', 25", "NULL, ?, 'client', ?"), (
                (str(uuid.uuid4()), uid, f"seed-{g}", FOUNDATIONS[g % 6], (g * 37) % 241,
                 sqlite_time(end - g * step), now, now) for g in range(rows)))
        conn.execute("ANALYZE")
        conn.close()


def run_backend(backend: str, api: str, work: Path, checks: Checks, cfg: dict) -> dict:
    seconds, conns, dbconns = cfg["seconds"], cfg["connections"], cfg["db_connections"]
    shared = None
    if backend == "postgres":
        shared = SharedDatabase("load")
        url = shared.url
    else:
        url = f"sqlite://{work}/load.db"
    svc = None
    result: dict = {"backend": backend, "routes": {}, "baselines": {}}
    try:
        svc = Service(api, url, f"api-{backend}", extra={"DATABASE_MAX_CONNECTIONS": str(dbconns)}, workdir=work)
        p = dev_login(svc.base, f"load-{backend}@example.org")
        create_key(svc.base, p)
        discover(svc.base, p, affirm=False)
        seed(backend, url, p.user_id, cfg["seed_rows"])
        log(f"{backend}: seeded {cfg['seed_rows']} mappings; service pid {svc.pid}, "
            f"RSS {svc.rss_kib() // 1024} MiB before load")
        lua = work / f"upsert-{backend}.lua"
        lua.write_text(f'local key = "{p.key}"\nlocal tag = "{backend}-{os.getpid()}"\n'
                       # 30 days back: outside the 14-day window, so the read-back run measures the seed alone.
                       f'local at = "{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 30 * 86400))}"\n'
                       + LUA)
        jwt = f"Authorization: Bearer {p.access}"
        key = f"X-API-Key: {p.key}"
        routes = [
            ("GET /healthz", "/healthz", [], None),
            ("GET /api/me (Bearer)", "/api/me", [jwt], None),
            ("POST /integration/task-mappings (API key)", "/integration/task-mappings", [], lua),
            ("GET /integration/work-patterns?days=14 (API key)", "/integration/work-patterns?days=14", [key], None),
            ("GET /discovery/profile/me (Bearer)", "/discovery/profile/me", [jwt], None),
        ]
        # Raw baselines, each right after its route (same data, same table statistics), while
        # the service sits idle.
        if backend == "postgres":
            how = f"pgbench, {dbconns} clients"
            raw = {
                "POST /integration/task-mappings (API key)": (f"raw INSERT ({how})", lambda: pgbench(
                    url, INSERT_PG, p.user_id, seconds, dbconns, work, "insert")),
                "GET /integration/work-patterns?days=14 (API key)": (f"raw 14-day aggregate ({how})", lambda: pgbench(
                    url, ROLLUP_PG, p.user_id, seconds, dbconns, work, "rollup")),
                "GET /discovery/profile/me (Bearer)": (f"raw profile SELECT ({how})", lambda: pgbench(
                    url, PROFILE_PG, p.user_id, seconds, dbconns, work, "profile")),
            }
        else:
            how = "python3 sqlite3, 1 connection"
            path_db = sqlite_path(url)
            now = lambda: sqlite_time(time.time())  # noqa: E731
            raw = {
                "POST /integration/task-mappings (API key)": (f"raw INSERT ({how})", lambda: sqlite_raw(
                    path_db, INSERT_SQLITE, lambda n: (
                        f"raw-{os.getpid()}-{n}-{time.monotonic_ns()}", p.user_id,
                        f"raw-{n}-{time.monotonic_ns()}", sqlite_time(time.time() - 30 * 86400), now(), now()),
                    seconds)),
                "GET /integration/work-patterns?days=14 (API key)": (f"raw 14-day aggregate ({how})", lambda: sqlite_raw(
                    path_db, ROLLUP_SQLITE, lambda n: (
                        p.user_id, sqlite_time(time.time() - 14 * 86400), now()), seconds)),
                "GET /discovery/profile/me (Bearer)": (f"raw profile SELECT ({how})", lambda: sqlite_raw(
                    path_db, PROFILE_SQLITE, lambda n: (p.user_id,), seconds)),
            }
        wanted = [w for w in os.environ.get("LOAD_ROUTES", "").split(",") if w]
        routes = [r for r in routes if not wanted or any(w in r[0] for w in wanted)]
        for name, path, headers, script in routes:
            r = wrk(svc.base + path, seconds, conns, headers, script)
            r["rss_peak_mib"] = round(svc.peak_rss_kib() / 1024, 1)
            r["rss_after_mib"] = {k: round(proc_status_kib(svc.pid, k) / 1024, 1)
                                  for k in ("VmRSS", "RssAnon", "RssFile")}
            result["routes"][name] = r
            log(f"{backend}: {name}: {r['rps']:.0f} req/s, p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, "
                f"non-2xx {r['non_2xx']}, socket errors {r['socket_errors'] or 0}, peak RSS {r['rss_peak_mib']} MiB "
                f"(after: {r['rss_after_mib']})")
            errs = sum(r["socket_errors"].values()) if r["socket_errors"] else 0
            if r["non_2xx"]:
                # wrk does not say which status. The service logs a server error's cause
                # (RUST_LOG=warn); a refused request (4xx) leaves no line, only its activity entry.
                text = svc.log_text()
                r["service_log"] = {k: text.count(k) for k in (
                    "dependency unavailable", "internal error", "timed out waiting for connection")}
                log(f"{backend}: {name}: service log: {r['service_log']}; last: {svc.log_tail(1)[:400]}")
            checks.check(r["non_2xx"] == 0 and errs == 0 and r["requests"] > 0,
                         f"{backend}: {name}: every answer 2xx, no socket error "
                         f"({r['requests']} requests, {r['non_2xx']} non-2xx, {errs} socket errors)")
            if name in raw:
                label, fn = raw[name]
                b = result["baselines"][label] = fn()
                log(f"{backend}: {label}: {b['rps']:.0f}/s, p50 {b['p50_ms']:.2f} ms, p99 {b['p99_ms']:.2f} ms")
        peak = svc.peak_rss_kib() / 1024
        result["rss_peak_mib"] = round(peak, 1)
        if backend == "sqlite":
            # mmap_size lets SQLite map the file: mapped pages count in RSS (RssFile).
            result["db_files_mib"] = {f.name: round(f.stat().st_size / 2**20, 1)
                                      for f in sorted(work.glob("load.db*"))}
        result["rss_ok"] = peak <= cfg["rss_limit"]
        checks.check(result["rss_ok"], f"{backend}: peak RSS (VmHWM) {peak:.1f} MiB <= {cfg['rss_limit']} MiB "
                     f"at {conns} connections")
        code = svc.terminate()
        checks.check(code == 0, f"{backend}: graceful stop exits 0 ({code})")
        result["ratios"] = {}
        for ratio, name in (("upsert / raw INSERT", "POST /integration/task-mappings (API key)"),
                            ("work patterns / raw aggregate", "GET /integration/work-patterns?days=14 (API key)"),
                            ("profile read / raw SELECT", "GET /discovery/profile/me (Bearer)")):
            if name in result["routes"]:
                result["ratios"][ratio] = round(
                    result["routes"][name]["rps"] / result["baselines"][raw[name][0]]["rps"], 2)
    finally:
        if svc:
            svc.close()
        if shared:
            shared.close()
    return result


def markdown(report: dict) -> str:
    lines = [f"# Load report ({report['at']})", "",
             f"`discovery-api` {report['profile']} build; wrk {report['connections']} connections, 2 threads, "
             f"{report['seconds']} s per route, loopback; service pool {report['db_connections']} connections; "
             f"{report['seed_rows']} mappings seeded for the person read back.", ""]
    for b in report["backends"]:
        lines += [f"## {b['backend']}", "", "| route | req/s | p50 ms | p99 ms | non-2xx | peak RSS MiB | RSS after (anon / file) MiB |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for name, r in b["routes"].items():
            lines.append(f"| {name} | {r['rps']:.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['non_2xx']} | "
                         f"{r['rss_peak_mib']} | {r['rss_after_mib']['RssAnon']} / {r['rss_after_mib']['RssFile']} |")
        for name, r in b["baselines"].items():
            lines.append(f"| {name} | {r['rps']:.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | - | - | - |")
        lines += ["", f"Peak RSS (VmHWM): **{b['rss_peak_mib']} MiB** — target <= {report['rss_limit_mib']} MiB at "
                  f"{report['connections']} connections: **{'pass' if b['rss_ok'] else 'FAIL'}**."
                  + (f" Database files (MiB): {b['db_files_mib']}." if b.get("db_files_mib") else ""),
                  "Ratios: " + ", ".join(f"{k} {v}x" for k, v in b.get("ratios", {}).items()), ""]
    lines += [f"Checks: {'all passed' if not report['failed'] else 'FAILED: ' + '; '.join(report['failed'])}", ""]
    return "\n".join(lines)


def main() -> int:
    ensure_wrk()
    api, _ = binaries()
    cfg = {
        "seconds": env_int("LOAD_SECONDS", 10),
        "connections": env_int("LOAD_CONNECTIONS", 64),
        "db_connections": env_int("LOAD_DB_CONNECTIONS", 16),
        "seed_rows": env_int("LOAD_SEED_ROWS", 20000),
        "rss_limit": env_int("LOAD_RSS_LIMIT_MB", 150),
    }
    backends = [b.strip() for b in os.environ.get("LOAD_BACKENDS", "sqlite,postgres").split(",") if b.strip()]
    out_dir = Path(os.environ.get("LOAD_REPORT_DIR") or TARGET / "reliability")
    checks = Checks("load")
    started = time.monotonic()
    report = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "profile": binary_profile(api),
              "seconds": cfg["seconds"], "connections": cfg["connections"],
              "db_connections": cfg["db_connections"], "seed_rows": cfg["seed_rows"],
              "rss_limit_mib": cfg["rss_limit"], "backends": []}
    for backend in backends:
        work = Path(tempfile.mkdtemp(prefix=f"discovery-load-{backend}-"))
        try:
            report["backends"].append(run_backend(backend, api, work, checks, cfg))
        except Exception as e:  # noqa: BLE001 - report it, then the other backend
            import traceback
            traceback.print_exc()
            checks.check(False, f"{backend}: the run itself failed: {e!r}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    report["failed"] = checks.failed
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "load-report.json").write_text(json.dumps(report, indent=2) + "\n")
    (out_dir / "load-report.md").write_text(markdown(report))
    figures = []
    for b in report["backends"]:
        for name, r in {**b["routes"], **b["baselines"]}.items():
            figures.append(f"{b['backend']}: {name}: {r['rps']:.0f}/s p50 {r['p50_ms']:.2f} ms p99 {r['p99_ms']:.2f} ms")
        wp = b["routes"].get("GET /integration/work-patterns?days=14 (API key)", {}).get("rss_after_mib")
        figures.append(f"{b['backend']}: peak RSS {b['rss_peak_mib']} MiB ({'pass' if b['rss_ok'] else 'FAIL'}; "
                       f"after work patterns {wp}; db files {b.get('db_files_mib', '-')}), "
                       f"ratios {b.get('ratios')}")
    figures.append(f"report: {out_dir / 'load-report.md'} and load-report.json")
    figures.append(f"took {time.monotonic() - started:.0f} s")
    return checks.report(figures)


if __name__ == "__main__":
    main_wrapper(main)
