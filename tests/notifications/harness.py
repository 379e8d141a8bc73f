"""The suite's plumbing: the binaries, a service with its database and delivery settings, the
batch binary beside it, SQL on the test database, and people taken through discovery. The
process, HTTP and sign-in helpers are the reliability suite's (tests/reliability/common.py)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "reliability"))
from common import (  # noqa: E402
    SECRET, CheckFailed, Checks, Person, Resp, Service, SharedDatabase, bearer, browser, dev_login,
    free_port, log, on_signals_exit, psql, request, with_db,
)

__all__ = [
    "CheckFailed", "Checks", "Person", "Resp", "Service", "SharedDatabase", "bearer", "browser", "dev_login",
    "free_port", "log", "on_signals_exit", "request",
]

SMTP_FROM = "Discovery Check-ins <checkins@discovery.test>"
SMTP_FROM_ADDRESS = "checkins@discovery.test"

# The seven prompts' answers. The goals (steps 6 and 7) are what a check-in quotes: one carries
# markup, which the HTML part of the e-mail must show as text.
GOAL_MARKUP = "Ship <b>v2</b> & rest"
ANSWERS = {
    1: "I love building small tools with friends and teaching what I learn.",
    2: "I am good at untangling messy problems and explaining them plainly.",
    3: "The world needs software people can trust and repair themselves.",
    4: "I can be paid for careful backend engineering and mentoring.",
    5: "I am driven by getting things right; under pressure I get strict and tidy up everything.",
    6: GOAL_MARKUP,
    7: "Lead a small team that maintains public-interest software.",
}

T = TypeVar("T")


def binaries() -> tuple[str, str]:
    """DISCOVERY_API and DISCOVERY_BATCH (run.sh builds them), copied: another build in the shared
    target directory may replace the originals while the suite runs."""
    api, batch = os.environ.get("DISCOVERY_API"), os.environ.get("DISCOVERY_BATCH")
    if not (api and batch):
        raise SystemExit("DISCOVERY_API and DISCOVERY_BATCH must name the binaries (run.sh sets them)")
    copies = Path(tempfile.mkdtemp(prefix="discovery-notify-bin-"))
    return str(shutil.copy2(api, copies)), str(shutil.copy2(batch, copies))


def wait_until(probe: Callable[[], T], timeout: float, interval: float = 0.1) -> T:
    """`probe()` once it is truthy, or its last value after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


# ---------------------------------------------------------------------------------------------
# the test database, for what no route shows (e-mail deliveries, leases) and to move time


_SAFE = re.compile(r"^[0-9A-Za-z@._:-]*$")


class Db:
    """SQL on a SQLite file (the sqlite3 module) or a PostgreSQL database (psql). Parameters are
    `?` placeholders; on PostgreSQL they are inlined, so only ids and addresses are allowed."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqlite = url.startswith("sqlite://")

    def _inline(self, sql: str, params: tuple) -> str:
        for p in params:
            if not _SAFE.match(str(p)):
                raise ValueError(f"unsafe SQL parameter {p!r}")
            sql = sql.replace("?", f"'{p}'", 1)
        return sql

    def rows(self, sql: str, *params) -> list[tuple]:
        if self.sqlite:
            with contextlib.closing(sqlite3.connect(self.url.removeprefix("sqlite://"), timeout=15)) as c:
                return [tuple(r) for r in c.execute(sql, params).fetchall()]
        out = psql(self.url, self._inline(sql, params))
        return [tuple(line.split("|")) for line in out.splitlines() if line]

    def execute(self, sql: str, *params) -> int:
        """Runs one statement in its own transaction; returns the rows it changed."""
        if self.sqlite:
            with contextlib.closing(sqlite3.connect(self.url.removeprefix("sqlite://"), timeout=15)) as c:
                with c:
                    return c.execute(sql, params).rowcount
        return len(psql(self.url, self._inline(sql, params) + " RETURNING 1").splitlines())

    # Moving time. The retry waits (30 s, 2 min, ...) and the 120 s lease are real; rather than
    # wait them out, the suite sets the row's due time (or the lease's end) to its own
    # created_at, which is in the past and in the backend's own timestamp format.
    def make_due(self, where: str, *params) -> int:
        return self.execute(
            f"UPDATE deliveries SET next_attempt_at = created_at WHERE status = 'pending' AND {where}", *params)

    def expire_lease(self, where: str, *params) -> int:
        return self.execute(
            f"UPDATE deliveries SET lease_until = created_at WHERE lease_until IS NOT NULL AND {where}", *params)


# ---------------------------------------------------------------------------------------------
# a service and the batch binary beside it


@dataclass
class Stack:
    """One `discovery-api` with its database, and how `discovery-batch` runs beside it."""

    name: str
    svc: Service
    db: Db
    batch_bin: str
    settings: dict[str, str]

    @property
    def base(self) -> str:
        return self.svc.base

    def batch(self, job: str, timeout: float = 120, **settings: str) -> tuple[int, dict, str]:
        """Runs `discovery-batch <job>` to its end: exit code, its JSON line, stderr. `settings`
        override the service's (e.g. WEBHOOK_ALLOW_PRIVATE="false")."""
        proc = self.spawn_batch(job, **settings)
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, last_json(out), err

    def spawn_batch(self, job: str, **settings: str) -> subprocess.Popen:
        # Its own working directory (the service's), so no stray .env is read.
        return subprocess.Popen([self.batch_bin, job], env=self.batch_env(settings), cwd=self.svc.workdir,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def batch_env(self, overrides: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in self.settings and k != "DATABASE_URL"}
        env.update(self.settings)
        env.update({"DATABASE_URL": self.db.url, "PUBLIC_BASE_URL": self.base, "JWT_SECRET": SECRET,
                    "RUST_LOG": "warn"})
        env.update(overrides or {})
        return env

    def close(self) -> None:
        self.svc.close()


def delivery_settings(smtp_port: int | None, allow_private: bool, worker: bool) -> dict[str, str]:
    """The delivery settings of a service and its batch runs, every one given (blank = unset), so
    nothing comes in from the caller's environment."""
    return {
        "SMTP_URL": f"smtp://127.0.0.1:{smtp_port}" if smtp_port else "",
        "SMTP_FROM": SMTP_FROM if smtp_port else "",
        "WEBHOOK_ALLOW_PRIVATE": "true" if allow_private else "false",
        "DELIVERY_WORKER": "true" if worker else "false",
    }


def start_stack(name: str, api: str, batch: str, database_url: str, workdir: Path,
                smtp_port: int | None = None, allow_private: bool = True, worker: bool = True) -> Stack:
    settings = delivery_settings(smtp_port, allow_private, worker)
    svc = Service(api, database_url, name, extra=settings, workdir=workdir)
    log(f"{name}: {svc.base} ({', '.join(f'{k}={v}' for k, v in settings.items() if v)})")
    return Stack(name, svc, Db(database_url), batch, settings)


def last_json(out: str) -> dict:
    for line in reversed(out.strip().splitlines()):
        with contextlib.suppress(ValueError):
            return json.loads(line)
    return {}


# ---------------------------------------------------------------------------------------------
# HTTP beyond JSON, and people


def post_form(base: str, path_and_query: str, form: str, timeout: float = 30) -> Resp:
    """A form-encoded POST with no credentials at all, as a mail program's one-click sends it."""
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("POST", path_and_query, body=form.encode(),
                     headers={"Content-Type": "application/x-www-form-urlencoded", "Connection": "close"})
        r = conn.getresponse()
        return Resp(r.status, r.getheaders(), r.read(), 0.0)
    finally:
        conn.close()


def expect(r: Resp, status: int | tuple[int, ...], what: str) -> Resp:
    """`r` when its status is the one expected; a failed check otherwise."""
    wanted = status if isinstance(status, tuple) else (status,)
    if r.status not in wanted:
        raise CheckFailed(f"{what}: expected {wanted}, got {r.status} {r.body[:300]!r}")
    return r


def discover(stack: Stack, person: Person, complete: bool = True, affirm: bool = False) -> None:
    """The conversation started and the seven prompts answered; completed, affirmed if asked."""
    auth = bearer(person.access)
    expect(request(stack.base, "POST", "/discovery/conversation", None, auth), (200, 201), "starting a conversation")
    for step, text in ANSWERS.items():
        expect(request(stack.base, "PUT", f"/discovery/conversation/me/answers/{step}", {"text": text}, auth),
               200, f"answering step {step}")
    if complete:
        expect(request(stack.base, "POST", "/discovery/conversation/me/complete", None, auth), 201, "completing")
    if affirm:
        expect(request(stack.base, "POST", "/discovery/profile/me/affirm", None, auth), 200, "affirming")


def register_webhook(stack: Stack, person: Person, url: str, events: list[str]) -> Resp:
    return request(stack.base, "POST", "/api/me/webhooks", {"url": url, "events": events},
                   browser(stack.base, person.access))


def deliveries(stack: Stack, person: Person, webhook_id: str, limit: int = 100) -> list[dict]:
    """The endpoint's delivery log (first page), newest first."""
    r = expect(request(stack.base, "GET", f"/api/me/webhooks/{webhook_id}/deliveries?limit={limit}", None,
                       browser(stack.base, person.access)), 200, "reading the delivery log")
    return r.json()["items"]


def ping(stack: Stack, person: Person, webhook_id: str) -> None:
    expect(request(stack.base, "POST", f"/api/me/webhooks/{webhook_id}/test", None,
                   browser(stack.base, person.access)), 202, "POST .../test")
