"""Shared helpers of the reliability suites: the binaries, a private PostgreSQL cluster, a
throwaway database on the shared server, the service process, a small HTTP client and the
checks. Standard library only (Python 3.11)."""

from __future__ import annotations

import atexit
import contextlib
import http.client
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or Path.home() / ".cache/discovery-target")
# The shared server other tests use: only fresh databases are created on it (and dropped).
SHARED_PG = os.environ.get("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
SECRET = "reliability-suite-jwt-secret-0123456789abcdef"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class CheckFailed(Exception):
    """One failed check; the suites collect them and exit non-zero."""


class Checks:
    """Records pass/fail lines; `report()` prints them and returns the exit status."""

    def __init__(self, suite: str) -> None:
        self.suite = suite
        self.lines: list[tuple[bool, str]] = []

    def check(self, ok: bool, what: str) -> bool:
        self.lines.append((bool(ok), what))
        log(("PASS " if ok else "FAIL ") + what)
        return bool(ok)

    @property
    def failed(self) -> list[str]:
        return [w for ok, w in self.lines if not ok]

    def report(self, figures: list[str]) -> int:
        print(f"\n=== {self.suite}: summary", flush=True)
        for f in figures:
            print(f"  {f}")
        print(f"  checks: {len(self.lines) - len(self.failed)} passed, {len(self.failed)} failed")
        for w in self.failed:
            print(f"  FAILED: {w}")
        return 1 if self.failed else 0


def on_signals_exit() -> None:
    """SIGTERM/SIGINT/SIGHUP to the suite unwind through `finally`, so everything started is stopped."""

    def handler(signum, _frame):
        raise SystemExit(128 + signum)

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, handler)


def env_int(name: str, default: int) -> int:
    v = os.environ.get(name, "")
    return int(v) if v.strip() else default


def env_float(name: str, default: float) -> float:
    v = os.environ.get(name, "")
    return float(v) if v.strip() else default


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# binaries


def binaries() -> tuple[str, str]:
    """`discovery-api` and `discovery-batch`: DISCOVERY_API / DISCOVERY_BATCH when set, else
    built with cargo (RELIABILITY_PROFILE=debug|release, default debug)."""
    api, batch = os.environ.get("DISCOVERY_API"), os.environ.get("DISCOVERY_BATCH")
    if not (api and batch):
        profile = os.environ.get("RELIABILITY_PROFILE", "debug")
        cmd = ["cargo", "build", "--locked", "-p", "api-actix", "-p", "batch"]
        if profile == "release":
            cmd.append("--release")
        log("building: " + " ".join(cmd))
        subprocess.run(cmd, cwd=ROOT, check=True, env={**os.environ, "CARGO_TARGET_DIR": str(TARGET)})
        api, batch = str(TARGET / profile / "discovery-api"), str(TARGET / profile / "discovery-batch")
    # Private copies: another build in the shared target directory may replace the originals
    # while a suite runs. The directory name keeps the profile for the report.
    copies = Path(tempfile.mkdtemp(prefix="discovery-rel-bin-")) / binary_profile(api)
    copies.mkdir()
    atexit.register(shutil.rmtree, copies.parent, True)
    return str(shutil.copy2(api, copies)), str(shutil.copy2(batch, copies))


def binary_profile(path: str) -> str:
    return "release" if "/release/" in path or path.endswith("/release") else "debug"


# ---------------------------------------------------------------------------------------------
# PostgreSQL


def psql(url: str, sql: str, timeout: float = 60) -> str:
    """Runs SQL through psql; the output is unaligned, tuples only."""
    r = subprocess.run(
        ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
        capture_output=True, text=True, timeout=timeout,
    )
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()}")
    return r.stdout.strip()


def with_db(url: str, db: str) -> str:
    base = url.rsplit("/", 1)[0] if url.count("/") >= 3 else url
    return f"{base}/{db}"


class SharedDatabase:
    """A fresh database on the shared server (TEST_DATABASE_URL, or `admin_url`), named
    `<suite>_<label>_...`, dropped on close."""

    def __init__(self, label: str, admin_url: str | None = None, suite: str = "reliability") -> None:
        self.name = f"{suite}_{label}_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        self.admin = admin_url or SHARED_PG
        psql(self.admin, f'CREATE DATABASE "{self.name}"')
        self.url = with_db(self.admin, self.name)
        log(f"created database {self.name} on the shared server")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            psql(self.admin, f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
            log(f"dropped database {self.name}")


class PrivateCluster:
    """A throwaway PostgreSQL cluster (initdb + pg_ctl as the `postgres` OS user) in a temporary
    directory on a free loopback port, trust authentication. Never touches the shared server."""

    def __init__(self) -> None:
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        if not bins:
            raise RuntimeError("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
        self.bin = bins[-1].parent
        self.dir = Path(tempfile.mkdtemp(prefix="discovery-pg-"))
        self.data = self.dir / "data"
        self.logfile = self.dir / "postgres.log"
        self.port = free_port()
        self.running = False
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        self._as_pg([str(self.bin / "initdb"), "-D", str(self.data), "--auth=trust", "-U", "postgres",
                     "--no-sync", "-E", "UTF8", "--locale=C"])
        self.admin = f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _as_pg(self, cmd: list[str], check: bool = True) -> subprocess.CompletedProcess:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        r = subprocess.run(prefix + cmd, capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd[:2])} failed: {r.stdout}{r.stderr}")
        return r

    def start(self) -> float:
        t = time.monotonic()
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self._as_pg([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.logfile),
                     "-w", "-t", "60", "-o", opts, "start"])
        self.running = True
        return time.monotonic() - t

    def stop(self, mode: str = "immediate") -> float:
        t = time.monotonic()
        self._as_pg([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"])
        self.running = False
        return time.monotonic() - t

    def create_db(self, name: str) -> str:
        psql(self.admin, f'CREATE DATABASE "{name}"')
        return with_db(self.admin, name)

    def close(self) -> None:
        if self.running:
            with contextlib.suppress(Exception):
                self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# the service


class Service:
    """`discovery-api --dev` on a free loopback port with the given settings."""

    def __init__(self, binary: str, database_url: str, name: str = "api", extra: dict | None = None,
                 workdir: Path | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.name = name
        self._own_workdir = workdir is None
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="discovery-rel-"))
        self.logpath = self.workdir / f"{name}.log"
        env = {
            k: v for k, v in os.environ.items()
            if not (k.startswith(("LLM_", "OIDC_", "JWT_", "AUTH_", "RATE_LIMIT_")) or k in ("API_KEY", "DATABASE_URL"))
        }
        env.update({
            "DATABASE_URL": database_url,
            "BIND_ADDR": f"127.0.0.1:{self.port}",
            "PUBLIC_BASE_URL": self.base,
            "JWT_SECRET": SECRET,
            "LLM_PROVIDER": "offline",
            "WEB_DIR": str(ROOT / "web"),
            "RUST_LOG": os.environ.get("RELIABILITY_RUST_LOG", "warn"),
            # The suites drive many sign-ins and coach calls from one address on purpose: the
            # per-address and per-person rate limits (0 = off) would answer 429 to the load.
            "RATE_LIMIT_SIGN_IN_PER_MINUTE": "0",
            "RATE_LIMIT_REFLECT_PER_MINUTE": "0",
            "RATE_LIMIT_COMPLETE_PER_MINUTE": "0",
            "RATE_LIMIT_RULE_CHANGES_PER_MINUTE": "0",
            "RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE": "0",
            "RATE_LIMIT_CHECKINS_PER_MINUTE": "0",
            "RATE_LIMIT_PROFILE_WRITES_PER_MINUTE": "0",
            "RATE_LIMIT_ENTRIES_PER_MINUTE": "0",
        })
        env.update(extra or {})
        self._log = open(self.logpath, "wb")
        # Its own working directory, so no stray .env is read.
        self.proc = subprocess.Popen([binary, "--dev"], env=env, cwd=self.workdir,
                                     stdout=self._log, stderr=subprocess.STDOUT)
        self.pid = self.proc.pid
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{name} exited at start-up:\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                if request(self.base, "GET", "/healthz", timeout=2).status == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start:\n{self.log_tail()}")
            time.sleep(0.1)

    def peak_rss_kib(self) -> int:
        return proc_status_kib(self.pid, "VmHWM")

    def rss_kib(self) -> int:
        return proc_status_kib(self.pid, "VmRSS")

    def log_tail(self, n: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.logpath.read_text(errors="replace").splitlines()[-n:])
        return ""

    def log_text(self) -> str:
        with contextlib.suppress(OSError):
            return self.logpath.read_text(errors="replace")
        return ""

    def terminate(self, timeout: float = 40) -> int | None:
        """SIGTERM (graceful), then SIGKILL after `timeout`; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()
        return self.proc.returncode

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            with contextlib.suppress(Exception):
                self.proc.wait(10)
        with contextlib.suppress(Exception):
            self._log.close()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)


def proc_status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{key} not in /proc/{pid}/status")


def run_batch(binary: str, database_url: str, job: str, cwd: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update({"DATABASE_URL": database_url, "RUST_LOG": "warn"})
    return subprocess.Popen([binary, job], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


# ---------------------------------------------------------------------------------------------
# HTTP


@dataclass
class Resp:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    elapsed: float
    started: float = 0.0

    def json(self):
        return json.loads(self.body) if self.body else None

    @property
    def code(self) -> str | None:
        with contextlib.suppress(Exception):
            return self.json()["error"]["code"]
        return None

    def cookies(self) -> dict[str, str]:
        jar = {}
        for k, v in self.headers:
            if k.lower() == "set-cookie":
                name, _, rest = v.partition("=")
                jar[name.strip()] = rest.split(";", 1)[0]
        return jar


def request(base: str, method: str, path: str, body=None, headers: dict | None = None,
            timeout: float = 30) -> Resp:
    """One request on a fresh connection. Raises OSError/http.client errors on transport failure."""
    host, port = base.removeprefix("http://").split(":")
    hdrs = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    hdrs.setdefault("Connection", "close")
    started = time.monotonic()
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request(method, path, body=data, headers=hdrs)
        r = conn.getresponse()
        payload = r.read()
        return Resp(r.status, r.getheaders(), payload, time.monotonic() - started, started)
    finally:
        conn.close()


_counter = itertools.count()


def request_id(tag: str) -> str:
    return f"rel-{tag}-{os.getpid()}-{next(_counter)}"


@dataclass
class Person:
    email: str
    user_id: str
    access: str
    refresh: str
    key: str = ""
    minutes: dict = field(default_factory=dict)  # external id -> minutes the client last wrote


def dev_login(base: str, email: str, ids: list | None = None) -> Person:
    rid = request_id("login")
    r = request(base, "POST", "/api/auth/dev-login", {"email": email}, {"X-Request-Id": rid})
    if r.status not in (200, 201, 204):
        raise CheckFailed(f"dev login of {email} answered {r.status}: {r.body[:200]!r}")
    if ids is not None:
        ids.append(rid)
    jar = r.cookies()
    me = request(base, "GET", "/api/me", headers=bearer(jar["ds_access"], ids, "me"))
    if me.status != 200:
        raise CheckFailed(f"/api/me after dev login answered {me.status}")
    return Person(email, me.json()["id"], jar["ds_access"], jar["ds_refresh"])


def bearer(token: str, ids: list | None = None, tag: str = "req") -> dict:
    h = {"Authorization": f"Bearer {token}"}
    if ids is not None:
        rid = request_id(tag)
        ids.append(rid)
        h["X-Request-Id"] = rid
    return h


def browser(base: str, token: str, ids: list | None = None, tag: str = "req") -> dict:
    """The session cookie and the service's own Origin, as its pages send them: what managing
    keys needs (a Bearer token or a key gets 403 session_required)."""
    h = {"Cookie": f"ds_access={token}", "Origin": base}
    if ids is not None:
        rid = request_id(tag)
        ids.append(rid)
        h["X-Request-Id"] = rid
    return h


# Every scope: the suites read profiles and check-ins with the key, besides logging time.
KEY_SCOPES = ["integration", "profile:read", "coaching"]


def create_key(base: str, person: Person, ids: list | None = None) -> str:
    r = request(base, "POST", "/api/me/api-keys", {"name": "reliability", "scopes": KEY_SCOPES},
                browser(base, person.access, ids, "key"))
    if r.status != 201:
        raise CheckFailed(f"creating an API key answered {r.status}")
    person.key = r.json()["key"]
    return person.key


ANSWERS = {
    1: "I love building small tools with friends and teaching what I learn.",
    2: "I am good at untangling messy problems and explaining them plainly.",
    3: "The world needs software people can trust and repair themselves.",
    4: "I can be paid for careful backend engineering and mentoring.",
    5: "I am driven by getting things right; under pressure I get strict and tidy up everything.",
    6: "Ship a reliable self-hosted service within a year.",
    7: "Lead a small team that maintains public-interest software.",
}


def discover(base: str, person: Person, affirm: bool, ids: list | None = None,
             complete: bool = True) -> Resp | None:
    """The seven prompts answered; completed (and affirmed) unless told otherwise."""
    r = request(base, "POST", "/discovery/conversation", None, bearer(person.access, ids, "conv"))
    if r.status not in (200, 201):
        raise CheckFailed(f"starting a conversation answered {r.status}")
    for step, text in ANSWERS.items():
        r = request(base, "PUT", f"/discovery/conversation/me/answers/{step}", {"text": text},
                    bearer(person.access, ids, "answer"))
        if r.status != 200:
            raise CheckFailed(f"answering step {step} answered {r.status}: {r.body[:200]!r}")
    if not complete:
        return None
    r = request(base, "POST", "/discovery/conversation/me/complete", None,
                bearer(person.access, ids, "complete"))
    if r.status != 201:
        raise CheckFailed(f"completing answered {r.status}: {r.body[:200]!r}")
    if affirm:
        a = request(base, "POST", "/discovery/profile/me/affirm", None,
                    bearer(person.access, ids, "affirm"))
        if a.status != 200:
            raise CheckFailed(f"affirming answered {a.status}")
    return r


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(p / 100 * (len(s) - 1)))))
    return s[k]


def iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


class Stopper:
    """A shared stop flag for load threads."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def __bool__(self) -> bool:
        return self.event.is_set()

    def set(self) -> None:
        self.event.set()


def main_wrapper(fn) -> None:
    on_signals_exit()
    try:
        code = fn()
    except CheckFailed as e:
        print(f"FAILED: {e}", file=sys.stderr, flush=True)
        code = 1
    sys.exit(code)
