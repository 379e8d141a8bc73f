#!/usr/bin/env python3
"""Notifications and webhooks (docs/api.md) against real processes: `discovery-api --dev` and
`discovery-batch` on fresh databases, a real SMTP server (aiosmtpd) and real HTTP receivers on
loopback. README.md here lists the scenarios; run it through run.sh.

SQLite (always), three services, each on its own database file:
  api-a  SMTP on, WEBHOOK_ALLOW_PRIVATE=true, its delivery worker on: e-mail, webhooks, the
         redirect, the receiver down then up (real wait and SQL), 500 x5, SMTP down
  api-b  WEBHOOK_ALLOW_PRIVATE=true, DELIVERY_WORKER=false: `discovery-batch deliver` killed -9;
         a `deliver` without WEBHOOK_ALLOW_PRIVATE refusing what was registered with it
  api-c  private destinations not allowed: the SSRF registrations
PostgreSQL (when TEST_DATABASE_URL is set): 1,000 events, two `deliver` runs and the worker.

Environment: DISCOVERY_API, DISCOVERY_BATCH (run.sh builds them), TEST_DATABASE_URL,
NOTIFY_FANOUT_EVENTS (1000), NOTIFY_BACKENDS ("sqlite postgres": which runs), RELIABILITY_RUST_LOG (the services' RUST_LOG, default warn).
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the tree

import contextlib  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

from faults import RealRetry, down_then_up, fan_out, five_failures, killed_worker, smtp_down  # noqa: E402
from harness import (  # noqa: E402
    CheckFailed, Checks, SharedDatabase, Stack, binaries, free_port, log, on_signals_exit, start_stack,
)
from receivers import Inbox, Receiver  # noqa: E402
from scenarios import (  # noqa: E402
    email_afterwards, email_checkins, redirect_not_followed, send_time_guard, ssrf_registration, webhooks,
)


class Runner:
    """Runs scenarios one after another: a scenario that fails or crashes is one failed check,
    and the others still run."""

    def __init__(self, checks: Checks) -> None:
        self.checks = checks
        self.timings: list[tuple[str, float]] = []

    def run(self, name: str, fn, *args):
        log(f"--- {name}")
        started = time.monotonic()
        try:
            return fn(*args)
        except CheckFailed as e:
            self.checks.check(False, f"{name}: {e}")
        except Exception as e:  # noqa: BLE001 - a crash is a finding, reported like a failure
            traceback.print_exc()
            self.checks.check(False, f"{name}: crashed: {e!r}")
        finally:
            self.timings.append((name, time.monotonic() - started))
        return None


def sqlite_run(api: str, batch: str, runner: Runner) -> None:
    checks = runner.checks
    work = Path(tempfile.mkdtemp(prefix="discovery-notify-"))
    inbox = Inbox(free_port()).start()
    hooks = Receiver("hooks", free_port()).start()
    target = Receiver("redirect-target", free_port()).start()
    stacks: list[Stack] = []
    receivers = [hooks, target]
    try:
        def db(name: str) -> str:
            return f"sqlite://{work}/{name}.db"

        a = start_stack("api-a", api, batch, db("a"), work, smtp_port=inbox.port)
        stacks.append(a)
        # Started first and finished last: its 30 s pass while the other scenarios run.
        real = runner.run("down-then-up, real 30 s wait (first attempt)", RealRetry, checks, a)
        if real:
            receivers.append(real.receiver)
        runner.run("e-mail", email_checkins, checks, a, inbox)
        runner.run("webhooks", webhooks, checks, a, hooks)
        runner.run("redirect", redirect_not_followed, checks, a, hooks, target)
        runner.run("down-then-up (SQL)", down_then_up, checks, a)
        runner.run("500 x5 then 200", five_failures, checks, a, hooks)
        runner.run("SMTP down", smtp_down, checks, a, inbox)

        b = start_stack("api-b", api, batch, db("b"), work, worker=False)
        stacks.append(b)
        runner.run("kill -9 mid-attempt", killed_worker, checks, b, hooks)
        runner.run("SSRF at send time", send_time_guard, checks, b, hooks)

        c = start_stack("api-c", api, batch, db("c"), work, allow_private=False)
        stacks.append(c)
        runner.run("SSRF registrations", ssrf_registration, checks, c, hooks.port)

        if real:
            runner.run("down-then-up, real 30 s wait (retry)", real.finish)
        email_afterwards(checks, inbox)
        hits = [h for r in receivers for h in r.hits if r is not target]
        bad = [f"{h.path}: {h.verify_error}" for h in hits if h.verify_error is not None]
        checks.check(not bad, f"every webhook request of the SQLite run verifies with standardwebhooks "
                              f"({len(hits)} requests, {len(bad)} not: {bad[:3]})")
    finally:
        if checks.failed:
            for s in stacks:
                print(f"--- {s.name} log (tail):\n{s.svc.log_tail(20)}", flush=True)
        for s in stacks:
            s.close()
        for r in receivers:
            r.stop()
        inbox.stop()
        shutil.rmtree(work, ignore_errors=True)


def postgres_run(api: str, batch: str, runner: Runner, admin_url: str) -> list[str]:
    work = Path(tempfile.mkdtemp(prefix="discovery-notify-pg-"))
    db = SharedDatabase("fanout", admin_url, suite="notifications")
    try:
        events = int(os.environ.get("NOTIFY_FANOUT_EVENTS") or 1000)
        return runner.run("PostgreSQL fan-out", fan_out, runner.checks, api, batch, db.url, work, events) or []
    finally:
        db.close()
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    on_signals_exit()  # SIGTERM/SIGINT unwind through `finally`: every process started is stopped
    api, batch = binaries()
    checks = Checks("notifications")
    runner = Runner(checks)
    figures: list[str] = []
    started = time.monotonic()
    try:
        backends = (os.environ.get("NOTIFY_BACKENDS") or "sqlite postgres").split()
        if "sqlite" in backends:
            log("=== SQLite")
            sqlite_run(api, batch, runner)
        pg = os.environ.get("TEST_DATABASE_URL", "").strip()
        if pg and "postgres" in backends:
            log("=== PostgreSQL")
            figures += postgres_run(api, batch, runner, pg)
        else:
            figures.append("PostgreSQL fan-out: skipped (TEST_DATABASE_URL is not set)")
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(Path(api).parent)
    figures.append("scenarios: " + ", ".join(f"{n} {s:.1f} s" for n, s in runner.timings))
    figures.append(f"took {time.monotonic() - started:.0f} s")
    if not checks.lines:
        checks.check(False, "no scenario ran (NOTIFY_BACKENDS, TEST_DATABASE_URL)")
    return checks.report(figures)


if __name__ == "__main__":
    sys.exit(main())
