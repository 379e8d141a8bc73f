#!/usr/bin/env python3
"""The kill -9 campaign, on SQLite and on PostgreSQL: rounds of mixed write load, `kill -9` of
`discovery-api` at a random moment, a restart on the same database, and the invariants checked
against what the clients were told (the ledger) and against each other.

Each round: start the service; CRASH_CLIENTS (5) clients, each owning one person, send a random
mix of single upserts (a fixed set of known ids, a new value each time), batch upserts (new ids,
CRASH_BATCH rows), rule changes (tag rules, which queue a re-classification of the person's
untagged-foundation entries), manual profile edits with `If-Match`, affirm, check-in creation
and response, reopen, and new people answering the seven prompts and completing; after a random
0.2-1.2 s (CRASH_MIN_LOAD/CRASH_MAX_LOAD) the service gets SIGKILL; it is started again on the
same database and checked:

  - every acknowledged write is present exactly as acknowledged: a single upsert holds the
    value of its last acknowledged write, or of the one write in flight at the kill; every
    acknowledged batch is whole; every acknowledged check-in, response, completion is there;
    a profile's text and lock are the last acknowledged, or the one in flight;
  - no batch is partial (all CRASH_BATCH rows or none, acknowledged or not);
  - profile version = revisions + affirmations + reopens (every change bumps it once; affirm and
    reopen record no revision, and every reopen follows an affirmation, so reopens =
    affirmations - 1 while locked); revisions are numbered 1..n; the newest revision's snapshot
    holds the profile's text;
  - every revision and every check-in has its outbox event (`profile.revised` events: as many as
    revisions, less those coalesced past REVISED_PER_MINUTE a person a minute, which a newer
    one replaced, so never fewer than min(revisions, REVISED_PER_MINUTE); a `checkin.created`
    event for each check-in and none for a check-in not stored);
  - re-classification: once the job is idle again, every entry sent without a foundation has the
    foundation of its first matching rule in force (or none), as one atomic pass would leave it;
  - reflection turns (the offline coach): every acknowledged turn stored, each person's turn
    with its coach's reply;
  - every state-changing request answered 2xx has its activity row (the service answers one
    only once its row is committed);
  - SQLite: `PRAGMA integrity_check` is `ok`.
After the last round: every outbox event of the clients' people reached the loopback webhook
receiver at least once, each request under its event's id as `webhook-id` (leases of attempts
cut off by a kill are ended first rather than waited out).

Measured, not checked: answered reads (a profile read in the mix, the rules listing) whose activity row is missing
after the kill (a read's row is queued and written after its answer, within a linger and a
commit).

pg-postmaster (a third backend): the service stays up on a private PostgreSQL cluster whose
postmaster gets SIGKILL at the random moment instead; the service must answer 503 `unavailable`
while the database is gone; the cluster is started again (crash recovery), and once the service
reads again the same invariants are checked. A write answered 503 counts as cut off (it may have
committed: its client waits for the round's end).

Environment: CRASH_MODE (short: 50 rounds per backend, 20 for pg-postmaster; long: 1000 and
200), CRASH_ROUNDS (overrides both), CRASH_BACKENDS (sqlite,postgres,pg-postmaster), CRASH_CLIENTS, CRASH_BATCH (10), CRASH_SEED (random),
TEST_DATABASE_URL (a fresh database on it, dropped after), DISCOVERY_API / DISCOVERY_BATCH.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ left in the tree
from common import (  # noqa: E402
    ANSWERS, CheckFailed, Checks, PrivateCluster, Service, SharedDatabase, Stopper, binaries, browser, create_key,
    dev_login, env_float, env_int, iso, log, main_wrapper, request, request_id,
)
from webhook_sink import WebhookSink  # noqa: E402

FOUNDATIONS = ["love", "strength", "mission", "vocation"]
TAGS = ["red", "green", "blue"]
SINGLE_IDS = 12
EDITABLE = "love_summary"
# What each person's webhook subscribes to: every event the campaign's writes make.
EVENTS = ["checkin.created", "profile.revised", "profile.affirmed"]
# `profile.revised` events a person a minute queued as they come (REVISED_PER_MINUTE in
# crates/adapters-diesel/src/repos/coalesce.rs); past it the newest replaces one still waiting.
REVISED_PER_MINUTE = 10
# Loopback webhooks need this; the service's own delivery worker sends them.
SERVICE_ENV = {"WEBHOOK_ALLOW_PRIVATE": "true"}


class Db:
    """Read-only SQL on the service's database, the same rows from either backend."""

    def __init__(self, backend: str, target: str) -> None:
        self.backend, self.target = backend, target

    def rows(self, sql: str) -> list[tuple]:
        if self.backend == "sqlite":
            con = sqlite3.connect(f"file:{self.target}?mode=ro", uri=True, timeout=30)
            try:
                return [tuple("" if v is None else str(v) for v in r) for r in con.execute(sql)]
            finally:
                con.close()
        r = subprocess.run(["psql", "-X", "-q", "-At", "-F", "\x1f", "-R", "\x1e", "-v",
                            "ON_ERROR_STOP=1", "-d", self.target, "-c", sql],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"psql failed: {r.stderr.strip()}")
        return [tuple(rec.split("\x1f")) for rec in r.stdout.strip("\n").split("\x1e") if rec.strip("\n")]

    def execute(self, sql: str) -> None:
        """One write, for what the test fast-forwards (a lease's end), never the data checked."""
        if self.backend == "sqlite":
            con = sqlite3.connect(self.target, timeout=30)
            try:
                with con:
                    con.execute(sql)
            finally:
                con.close()
            return
        r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.target, "-c", sql],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"psql failed: {r.stderr.strip()}")


@dataclass
class Person:
    """One client's person and what the service acknowledged to it."""

    w: int
    email: str
    user_id: str = ""
    key: str = ""
    access: str = ""
    # single upserts: id -> last acknowledged minutes; id -> minutes of a write not answered
    single_acked: dict = field(default_factory=dict)
    single_unknown: dict = field(default_factory=dict)
    batches_acked: set = field(default_factory=set)
    batches_unknown: set = field(default_factory=set)
    # profile: last acknowledged text and lock, and the values a write not answered may have set
    text: str = ""
    text_unknown: set = field(default_factory=set)
    locked: bool = False
    lock_unknown: set = field(default_factory=set)
    version: int = 0
    checkins_acked: set = field(default_factory=set)
    responses_acked: dict = field(default_factory=dict)  # check-in id -> still_valid
    open_checkins: list = field(default_factory=list)
    completions_acked: dict = field(default_factory=dict)  # email -> user id
    newcomers: int = 0
    # reflection: the person's acknowledged turns; a turn not answered may have revised the text
    reflections_acked: set = field(default_factory=set)
    reflection_unknown: set = field(default_factory=set)
    # rules: position order of (tag, foundation) as last acknowledged
    rules: int = 0
    n: int = 0


@dataclass
class Tally:
    sent: int = 0
    acked: int = 0
    unanswered: int = 0
    refused: int = 0
    unavailable: int = 0  # answered 503 while PostgreSQL recovered (pg-postmaster mode)
    unexpected: list = field(default_factory=list)
    answered_writes: list = field(default_factory=list)  # request ids of answered state changes
    answered_reads: list = field(default_factory=list)  # request ids of answered reads


# What `Client.send` returns for a request the dead service never received.
REFUSED = object()


def ok(status: int | None) -> bool:
    return status is not None and 200 <= status < 300


class Client:
    def __init__(self, base: str, person: Person, tally: Tally, lock: threading.Lock,
                 rng: random.Random, stop: Stopper, db_crash: bool = False):
        self.base, self.p, self.tally, self.lock, self.rng = base, person, tally, lock, rng
        self.stop = stop
        # pg-postmaster mode: the service lives on and answers 503 while the database is gone.
        # Such a write may or may not have committed; the client then waits for the round's end.
        self.db_crash = db_crash
        self.paused = False

    def send(self, method: str, path: str, body=None, auth: str = "key", extra: dict | None = None):
        rid = request_id(f"c{self.p.w}")
        h = {"X-Request-Id": rid}
        h.update({"X-API-Key": self.p.key} if auth == "key" else {"Authorization": f"Bearer {self.p.access}"})
        h.update(extra or {})
        with self.lock:
            self.tally.sent += 1
        try:
            r = request(self.base, method, path, body, h, timeout=20)
        except ConnectionRefusedError:
            # The service is gone: this request never reached it. The round is over.
            with self.lock:
                self.tally.refused += 1
            self.stop.event.wait(5)
            return REFUSED
        except Exception:  # noqa: BLE001 - the kill: no answer, the write may or may not be in
            with self.lock:
                self.tally.unanswered += 1
            self.paused = self.db_crash
            return None
        if self.db_crash and r.status == 503 and r.code == "unavailable":
            with self.lock:
                self.tally.unavailable += 1
            self.paused = True
            return None
        with self.lock:
            self.tally.acked += ok(r.status)
            # A state change that went through must have its activity row (the service answers
            # it only once the row is committed); a read's row may still be queued at the kill.
            if method == "GET":
                self.tally.answered_reads.append(rid)
            elif ok(r.status):
                self.tally.answered_writes.append(rid)
        return r

    def unexpected(self, what: str, r) -> None:
        with self.lock:
            self.tally.unexpected.append(f"{what}: {r.status} {r.code} {r.body[:160]!r}")

    def step(self) -> None:
        p, rng = self.p, self.rng
        p.n += 1
        op = rng.choices(["single", "batch", "edit", "cycle", "rule", "newcomer", "read", "reflect"],
                         weights=[30, 20, 20, 15, 8, 4, 6, 8])[0]
        getattr(self, op)()

    def single(self) -> None:
        p = self.p
        ext = f"s-{p.w}-{self.rng.randrange(SINGLE_IDS)}"
        minutes = self.rng.randrange(1, 1440)
        r = self.send("POST", "/integration/task-mappings", {
            "external_task_id": ext, "task_label": "crash", "foundation": "love", "minutes": minutes,
            "occurred_at": iso(time.time() - 7200)})
        if r is None:
            p.single_unknown.setdefault(ext, set()).add(minutes)
        elif r is REFUSED:
            pass
        elif ok(r.status):
            p.single_acked[ext] = minutes
            p.single_unknown.pop(ext, None)
        else:
            self.unexpected("single upsert", r)

    def batch(self) -> None:
        p = self.p
        tag = f"b-{p.w}-{p.n}-{self.rng.randrange(1 << 30)}"
        # Half the batches carry a tag and no foundation: the rules classify them.
        by_rule = self.rng.random() < 0.5
        items = []
        for k in range(BATCH):
            item = {"external_task_id": f"{tag}-{k}", "task_label": "crash", "minutes": 1 + k,
                    "occurred_at": iso(time.time() - 3600)}
            if by_rule:
                item["tags"] = [self.rng.choice(TAGS)]
            else:
                item["foundation"] = self.rng.choice(FOUNDATIONS)
            items.append(item)
        r = self.send("POST", "/integration/task-mappings/batch", {"items": items})
        if r is None:
            p.batches_unknown.add(tag)
            return
        if r is REFUSED:
            return
        if ok(r.status):
            p.batches_acked.add(tag)
        else:
            self.unexpected("batch upsert", r)

    def edit(self) -> None:
        p = self.p
        if p.locked:
            return self.cycle()
        text = f"Edited by client {p.w}, write {p.n}, {self.rng.randrange(1 << 30)}."
        r = self.send("PATCH", "/discovery/profile/me", {EDITABLE: text}, auth="bearer",
                      extra={"If-Match": f'"{p.version}"'})
        if r is None:
            p.text_unknown.add(text)
            return
        if r is REFUSED:
            return
        if ok(r.status):
            body = r.json()
            p.text, p.version = body[EDITABLE], body["version"]
        elif r.status == 409 and r.code == "conflict":
            # Only after a kill left a change of ours committed but unanswered: read it again.
            self.refresh()
        else:
            self.unexpected("profile edit", r)

    def reflect(self) -> None:
        """A reflection turn (the offline coach): the person's turn and the coach's reply are
        stored together, with a revision when the coach revises a field."""
        p = self.p
        if p.locked:
            return self.cycle()
        message = f"Reflection {p.w}-{p.n}-{self.rng.randrange(1 << 30)}: I also love teaching."
        r = self.send("POST", "/discovery/profile/me/reflect", {"message": message}, auth="bearer")
        if r is None:
            p.reflection_unknown.add(message)
        elif r is REFUSED:
            pass
        elif ok(r.status):
            profile = r.json()["profile"]
            p.text, p.version = profile[EDITABLE], profile["version"]
            p.reflections_acked.add(message)
        else:
            self.unexpected("reflection", r)

    def cycle(self) -> None:
        """Affirm; create a check-in and answer it; reopen: one step per call."""
        p = self.p
        if not p.locked:
            return self.set_lock(True)
        if p.open_checkins:
            cid = p.open_checkins[0]
            valid = self.rng.random() < 0.5
            r = self.send("POST", f"/coaching/checkins/{cid}/response", {"still_valid": valid})
            if r is None or r is REFUSED:
                return
            p.open_checkins.pop(0)
            if ok(r.status):
                p.responses_acked[cid] = valid
            elif r.code != "already_responded":
                self.unexpected("check-in response", r)
            return
        if self.rng.random() < 0.6:
            r = self.send("POST", "/coaching/checkins", None)
            if r is None or r is REFUSED:
                return
            if r.status == 201:
                cid = r.json()["id"]
                p.checkins_acked.add(cid)
                p.open_checkins.append(cid)
            else:
                self.unexpected("check-in", r)
            return
        return self.set_lock(False)

    def set_lock(self, locked: bool) -> None:
        """Affirm (lock) or reopen (unlock) the profile."""
        action = "affirm" if locked else "reopen"
        r = self.send("POST", f"/discovery/profile/me/{action}", None, auth="bearer")
        if r is None:
            self.p.lock_unknown.add(locked)
        elif r is REFUSED:
            pass
        elif ok(r.status):
            self.p.locked, self.p.version = locked, r.json()["version"]
        else:
            self.unexpected(action, r)

    def rule(self) -> None:
        p = self.p
        body = {"match": {"tag": self.rng.choice(TAGS)}, "foundation": self.rng.choice(FOUNDATIONS)}
        if p.rules >= 6:
            rules = self.send("GET", "/integration/rules")
            if rules is None or rules is REFUSED or not ok(rules.status) or not rules.json():
                return
            victim = self.rng.choice(rules.json())["id"]
            r = self.send("DELETE", f"/integration/rules/{victim}")
            if r is None or r is REFUSED:
                return
            if ok(r.status):
                p.rules -= 1
            elif r.status != 404:
                self.unexpected("rule delete", r)
            return
        r = self.send("POST", "/integration/rules", body)
        if r is None or r is REFUSED:
            return
        if ok(r.status):
            p.rules += 1
        else:
            self.unexpected("rule create", r)

    def newcomer(self) -> None:
        """A new person answers the seven prompts and completes."""
        p = self.p
        p.newcomers += 1
        email = f"crash-new-{p.w}-{p.newcomers}-{self.rng.randrange(1 << 30)}@example.org"
        try:
            someone = dev_login(self.base, email)
        except Exception:  # noqa: BLE001 - killed mid-way
            return
        h = {"Authorization": f"Bearer {someone.access}"}
        try:
            if not ok(request(self.base, "POST", "/discovery/conversation", None, h).status):
                return
            for step, text in ANSWERS.items():
                a = request(self.base, "PUT", f"/discovery/conversation/me/answers/{step}", {"text": text}, h)
                if not ok(a.status):
                    return
            c = request(self.base, "POST", "/discovery/conversation/me/complete", None, h)
        except Exception:  # noqa: BLE001 - killed mid-way
            return
        if c.status == 201:
            p.completions_acked[email] = someone.user_id
        elif not (self.db_crash and c.status == 503):
            self.unexpected("completion", c)

    def read(self) -> None:
        """A read, for the activity log's loss window on reads (measured, not checked)."""
        r = self.send("GET", "/discovery/profile/me", auth="bearer")
        if r is not None and r is not REFUSED and r.status != 200:
            self.unexpected("profile read", r)

    def refresh(self) -> None:
        r = request(self.base, "GET", "/discovery/profile/me", None,
                    {"Authorization": f"Bearer {self.p.access}"})
        if r.status == 200:
            body = r.json()
            self.p.version, self.p.locked, self.p.text = body["version"], body["locked"], body[EDITABLE]


BATCH = env_int("CRASH_BATCH", 10)


def round_load(svc: Service, people: list[Person], tally: Tally, rng: random.Random) -> float:
    """Runs the clients until a random moment, then kill -9; returns the load's length."""
    stop = Stopper()
    lock = threading.Lock()

    def run_client(p: Person, seed: int) -> None:
        client = Client(svc.base, p, tally, lock, random.Random(seed), stop)
        while not stop:
            client.step()

    threads = [threading.Thread(target=run_client, args=(p, rng.randrange(1 << 30)), daemon=True)
               for p in people]
    for t in threads:
        t.start()
    length = rng.uniform(env_float("CRASH_MIN_LOAD", 0.2), env_float("CRASH_MAX_LOAD", 1.2))
    time.sleep(length)
    os.kill(svc.pid, signal.SIGKILL)
    stop.set()
    svc.proc.wait(10)
    for t in threads:
        t.join(60)
    svc.close()
    return length


def round_db_crash(svc: Service, cluster: PrivateCluster, people: list[Person], tally: Tally,
                   rng: random.Random, fail) -> dict:
    """pg-postmaster mode: the clients run until a random moment, then PostgreSQL's postmaster
    gets SIGKILL (a crash: no shutdown checkpoint; its backends notice and exit on their own);
    the service, still up, must answer 503 `unavailable` meanwhile; the cluster is started again
    (crash recovery from the WAL) and the round ends once the service is ready again."""
    stop = Stopper()
    lock = threading.Lock()
    clients = [Client(svc.base, p, tally, lock, random.Random(rng.randrange(1 << 30)), stop, db_crash=True)
               for p in people]

    def run_client(client: Client) -> None:
        while not stop and not client.paused:
            client.step()

    threads = [threading.Thread(target=run_client, args=(c,), daemon=True) for c in clients]
    for t in threads:
        t.start()
    time.sleep(rng.uniform(env_float("CRASH_MIN_LOAD", 0.2), env_float("CRASH_MAX_LOAD", 1.2)))
    postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
    children = [int(c) for c in subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True,
                                               text=True).stdout.split()]
    killed = time.monotonic()
    os.kill(postmaster, signal.SIGKILL)
    # Its backends finish what they were doing and exit; the data directory is free after that.
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{c}").exists() for c in children) and time.monotonic() < deadline:
        time.sleep(0.02)
    key = people[0].key
    probe = request(svc.base, "GET", "/integration/rules", None, {"X-API-Key": key}, timeout=30)
    if (probe.status, probe.code) != (503, "unavailable"):
        fail(f"with the postmaster killed, a read answered {probe.status} {probe.code}, not 503 unavailable")
    cluster.start()
    deadline = time.monotonic() + 60
    while request(svc.base, "GET", "/readyz", timeout=10).status != 200:
        if time.monotonic() > deadline:
            fail("the service was not ready 60 s after PostgreSQL restarted")
            break
        time.sleep(0.05)
    # A pooled connection from before the crash fails once when next used (503 again) and is
    # replaced: the round ends when reads succeed a pool's worth of times in a row.
    stale, streak = 0, 0
    while streak < 20 and time.monotonic() < deadline:
        r = request(svc.base, "GET", "/integration/rules", None, {"X-API-Key": key}, timeout=10)
        streak = streak + 1 if r.status == 200 else 0
        stale += r.status == 503
        if r.status not in (200, 503):
            fail(f"after recovery a read answered {r.status} {r.code}")
    if streak < 20:
        fail("reads did not succeed 20 times in a row within 60 s of PostgreSQL's restart")
    recovered = time.monotonic() - killed
    stop.set()
    for t in threads:
        t.join(60)
    return {"recovered": recovered, "stale": stale}


def sign_in(base: str, p: Person, stale_ok: bool = False) -> int:
    """Signs `p` in again. With `stale_ok` (pg-postmaster mode), a 503 is tried again for up to
    30 s: a pooled connection from before the crash fails once when next used, whichever request
    draws it (docs/reliability.md). Returns how many 503s that took."""
    stale, deadline = 0, time.monotonic() + 30
    while True:
        try:
            fresh = dev_login(base, p.email)
            break
        except CheckFailed as e:
            if not (stale_ok and "answered 503" in str(e) and time.monotonic() < deadline):
                raise
            stale += 1
            time.sleep(0.05)
    p.user_id, p.access = fresh.user_id, fresh.access
    return stale


def grouped(rows: list[tuple]) -> dict[str, list[tuple]]:
    """Rows whose first column is a user id, by that id (the rest of each row)."""
    out: dict[str, list[tuple]] = {}
    for r in rows:
        out.setdefault(r[0], []).append(r[1:])
    return out


def check_round(db: Db, svc: Service, people: list[Person], checks_failed: list[str],
                figures: dict) -> None:
    """Every invariant against the restarted service's database; reconciles the ledger with what
    is stored where the kill left a write undecided. A few queries over everyone per round."""
    fail = checks_failed.append
    if db.backend == "sqlite":
        integrity = db.rows("PRAGMA integrity_check")
        if integrity != [("ok",)]:
            fail(f"integrity_check: {integrity[:3]}")
    users = ",".join(f"'{p.user_id}'" for p in people)
    singles = grouped(db.rows(f"SELECT user_id, external_task_id, minutes FROM task_mapping "
                              f"WHERE user_id IN ({users}) AND external_task_id LIKE 's-%'"))
    batches = grouped(db.rows(
        f"SELECT user_id, b, count(*) FROM (SELECT user_id, "
        f"rtrim(rtrim(external_task_id, '0123456789'), '-') AS b FROM task_mapping "
        f"WHERE user_id IN ({users}) AND external_task_id LIKE 'b-%') AS t GROUP BY user_id, b"))
    profiles = {r[0]: r[1:] for r in db.rows(
        f"SELECT user_id, id, version, CASE WHEN locked THEN 1 ELSE 0 END, {EDITABLE} "
        f"FROM discovery_profile WHERE user_id IN ({users})")}
    revisions = grouped(db.rows(
        f"SELECT p.user_id, r.number, r.snapshot FROM profile_revision r JOIN discovery_profile p "
        f"ON p.id = r.profile_id WHERE p.user_id IN ({users}) ORDER BY r.number"))
    events = grouped(db.rows(f"SELECT user_id, event_type, count(*) FROM outbox_events "
                             f"WHERE user_id IN ({users}) GROUP BY user_id, event_type"))
    checkins = grouped(db.rows(
        f"SELECT user_id, id, CASE WHEN still_valid IS NULL THEN '' WHEN still_valid THEN 't' "
        f"ELSE 'f' END FROM coaching_checkin WHERE user_id IN ({users})"))
    extract = ("json_extract(payload, '$.data.id')" if db.backend == "sqlite"
               else "(payload::json -> 'data' ->> 'id')")
    checkin_events = grouped(db.rows(f"SELECT user_id, {extract} FROM outbox_events "
                                     f"WHERE user_id IN ({users}) AND event_type = 'checkin.created'"))
    turns = grouped(db.rows(f"SELECT user_id, author, text FROM reflection_message "
                            f"WHERE user_id IN ({users})"))
    for p in people:
        uid = p.user_id
        # single upserts: the last acknowledged value, or the one in flight at the kill
        stored = {ext: int(m) for ext, m in singles.get(uid, [])}
        for ext in set(p.single_acked) | set(p.single_unknown):
            allowed = set(p.single_unknown.get(ext, set()))
            if ext in p.single_acked:
                allowed.add(p.single_acked[ext])
            have = stored.get(ext)
            if have not in allowed and not (have is None and ext not in p.single_acked):
                fail(f"single upsert {ext}: stored {have}, acknowledged {p.single_acked.get(ext)}, "
                     f"in flight {sorted(allowed)}")
            if have is not None:
                p.single_acked[ext] = have
            figures["singles_checked"] += ext in p.single_acked
        p.single_unknown.clear()
        # batches: whole or absent; every acknowledged one whole
        sizes = {b: int(n) for b, n in batches.get(uid, [])}
        partial = {b: n for b, n in sizes.items() if n != BATCH}
        if partial:
            fail(f"partial batches: {dict(list(partial.items())[:3])}")
        lost = [b for b in p.batches_acked if b not in sizes]
        if lost:
            fail(f"acknowledged batches lost: {lost[:3]}")
        figures["batches_checked"] += len(p.batches_acked)
        figures["batches_unknown"] += len(p.batches_unknown)
        figures["batches_unknown_stored"] += sum(1 for b in p.batches_unknown if b in sizes)
        p.batches_acked |= {b for b in p.batches_unknown if b in sizes}
        p.batches_unknown.clear()
        # profile: text and lock as acknowledged (or in flight); version, revisions, events
        if uid not in profiles:
            fail(f"{p.email}: no profile")
            continue
        _pid, version, locked, text = profiles[uid]
        version, locked = int(version), locked == "1"
        # reflection: every acknowledged turn stored, each person's turn with its coach's reply
        mine = turns.get(uid, [])
        said = {t for a, t in mine if a == "person"}
        replies = sum(1 for a, _ in mine if a == "coach")
        lost_turns = p.reflections_acked - said
        if lost_turns:
            fail(f"{p.email}: acknowledged reflection turns lost: {sorted(lost_turns)[:2]}")
        if replies != len(said):
            fail(f"{p.email}: {len(said)} reflection turns, {replies} coach replies")
        figures["reflections_checked"] += len(p.reflections_acked)
        # a turn cut off by the kill may have committed, with whatever revision the coach made
        cut_off_turn = bool(p.reflection_unknown & said)
        p.reflections_acked |= p.reflection_unknown & said
        p.reflection_unknown.clear()
        if text != p.text and text not in p.text_unknown and not cut_off_turn:
            fail(f"{p.email}: profile text {text!r}, acknowledged {p.text!r}")
        if locked != p.locked and locked not in p.lock_unknown:
            fail(f"{p.email}: locked {locked}, acknowledged {p.locked}")
        if version < p.version:
            fail(f"{p.email}: version {version} below the acknowledged {p.version}")
        p.text, p.locked, p.version = text, locked, version
        p.text_unknown.clear()
        p.lock_unknown.clear()
        revs = revisions.get(uid, [])
        numbers = [int(n) for n, _ in revs]
        if numbers != list(range(1, len(numbers) + 1)):
            fail(f"{p.email}: revisions numbered {numbers[:5]}...{numbers[-3:]}")
        if revs and json.loads(revs[-1][1]).get(EDITABLE) != text:
            fail(f"{p.email}: the newest revision's snapshot does not hold the profile's text")
        counts = {t: int(n) for t, n in events.get(uid, [])}
        revised, affirmed = counts.get("profile.revised", 0), counts.get("profile.affirmed", 0)
        # Past the per-minute budget a new revision's event replaces the latest one still
        # waiting (crates/adapters-diesel/src/repos/coalesce.rs): the count never drops, and
        # never exceeds the revisions.
        if not min(len(revs), REVISED_PER_MINUTE) <= revised <= len(revs):
            fail(f"{p.email}: {len(revs)} revisions, {revised} profile.revised events")
        reopened = affirmed - (1 if locked else 0)
        if version != len(revs) + affirmed + reopened:
            fail(f"{p.email}: version {version} != {len(revs)} revisions + {affirmed} affirmations "
                 f"+ {reopened} reopens")
        figures["profiles_checked"] += 1
        # check-ins, responses and their events
        stored_checkins = dict(checkins.get(uid, []))
        missing = p.checkins_acked - stored_checkins.keys()
        if missing:
            fail(f"{p.email}: acknowledged check-ins lost: {sorted(missing)[:3]}")
        for cid, valid in p.responses_acked.items():
            if stored_checkins.get(cid) != ("t" if valid else "f"):
                fail(f"{p.email}: acknowledged response to {cid} stored as {stored_checkins.get(cid)!r}")
        event_ids = sorted(e for (e,) in checkin_events.get(uid, []))
        if event_ids != sorted(stored_checkins):
            fail(f"{p.email}: {len(stored_checkins)} check-ins, {len(event_ids)} checkin.created events "
                 f"({len(set(event_ids) - stored_checkins.keys())} for no stored check-in)")
        figures["checkins_checked"] += len(p.checkins_acked)
        figures["responses_checked"] += len(p.responses_acked)
        # a check-in created but unanswered by the kill is still open (or not there)
        p.open_checkins = [c for c, v in stored_checkins.items() if v == ""]
        p.checkins_acked |= set(stored_checkins)
    # completions
    done = [user for p in people for user in p.completions_acked.values()]
    if done:
        have = {u for (u,) in db.rows("SELECT user_id FROM discovery_profile WHERE user_id IN ("
                                      + ",".join(f"'{u}'" for u in done) + ")")}
        for p in people:
            for email, user in p.completions_acked.items():
                if user not in have:
                    fail(f"acknowledged completion of {email} has no profile")
    figures["completions_checked"] += len(done)
    for p in people:
        p.completions_acked.clear()
    check_reclassification(db, svc, people, fail, figures)


def check_reclassification(db: Db, svc: Service, people: list[Person], fail, figures: dict) -> None:
    """Waits for each person's re-classification to be idle, then compares every entry sent
    without a foundation with its first matching rule."""
    deadline = time.monotonic() + 60
    for p in people:
        while True:
            r = request(svc.base, "GET", "/integration/reclassification", None, {"X-API-Key": p.key})
            if r.status == 200 and r.json()["state"] == "idle":
                break
            if time.monotonic() > deadline:
                fail(f"{p.email}: re-classification still {r.status} {r.body[:100]!r} after 60 s")
                return
            time.sleep(0.05)
    users = ",".join(f"'{p.user_id}'" for p in people)
    rules = grouped(db.rows(f"SELECT user_id, pattern, foundation FROM mapping_rules "
                            f"WHERE user_id IN ({users}) AND match_kind = 'tag' ORDER BY position"))
    entries = grouped(db.rows(f"SELECT user_id, external_task_id, tags, foundation FROM task_mapping "
                              f"WHERE user_id IN ({users}) AND external_task_id LIKE 'b-%' AND "
                              f"(mapped_by IS NULL OR mapped_by = 'rule')"))
    for p in people:
        first: dict[str, str] = {}
        for tag, foundation in rules.get(p.user_id, []):
            first.setdefault(tag.lower(), foundation)
        wrong = []
        mine = entries.get(p.user_id, [])
        for ext, tags, foundation in mine:
            tag_list = json.loads(tags) if tags else []
            want = next((first[t.lower()] for t in tag_list if t.lower() in first), "")
            if (foundation or "") != want:
                wrong.append((ext, tag_list, foundation, want))
        if wrong:
            fail(f"{p.email}: {len(wrong)} entries not as one pass of the rules would leave them, e.g. {wrong[0]}")
        figures["reclassified_checked"] += len(mine)


def check_deliveries(db: Db, svc: Service, people: list[Person], sink: WebhookSink,
                     failed: list[str], totals: dict) -> None:
    """After the last round: every outbox event of the campaign's people reaches the receiver at
    least once, and every request carrying an event has that event's id as its `webhook-id`.
    Attempts cut off by a kill stay leased for two minutes, then any worker retries them; the
    test ends those leases now rather than wait (what `lease_until` means is unchanged)."""
    users = ",".join(f"'{p.user_id}'" for p in people)
    db.execute(f"UPDATE deliveries SET lease_until = created_at, next_attempt_at = created_at "
               f"WHERE status = 'pending' AND user_id IN ({users})")
    want = {e for (e,) in db.rows(f"SELECT id FROM outbox_events WHERE user_id IN ({users})")}
    deadline = time.monotonic() + 90
    while not want <= sink.received().keys() and time.monotonic() < deadline:
        time.sleep(0.5)
    got = sink.received()
    missing = want - got.keys()
    if missing:
        failed.append(f"webhooks: {len(missing)} of {len(want)} events never reached the receiver "
                      f"in 90 s, e.g. {sorted(missing)[0]}")
    wrong = [e for e, ids in got.items() if set(ids) != {e}]
    if wrong:
        failed.append(f"webhooks: {len(wrong)} events arrived under another webhook-id, e.g. "
                      f"{wrong[0]}: {got[wrong[0]][:3]}")
    totals["events_delivered"] = len(want & got.keys())
    totals["webhook_requests"] = sum(len(v) for v in got.values())
    totals["events_repeated"] = sum(1 for v in got.values() if len(v) > 1)


def campaign(backend: str, api: str, rounds: int, rng: random.Random, checks: Checks, figures: list[str]) -> None:
    work = Path(tempfile.mkdtemp(prefix=f"discovery-crash-{backend}-"))
    shared = None
    cluster = None
    svc = None
    sink = WebhookSink()
    try:
        if backend == "sqlite":
            target = str(work / "discovery.db")
            url = f"sqlite://{target}"
        elif backend == "pg-postmaster":
            cluster = PrivateCluster()
            cluster.start()
            url = target = cluster.create_db("crash")
        else:
            shared = SharedDatabase("crash", suite="reliability")
            url = target = shared.url
        db = Db(backend, target)
        svc = Service(api, url, f"crash-{backend}", extra=SERVICE_ENV, workdir=work)
        people = [Person(w, f"crash{w}@example.org") for w in range(env_int("CRASH_CLIENTS", 5))]
        for p in people:
            sign_in(svc.base, p)
            me = dev_login(svc.base, p.email)
            p.key = create_key(svc.base, me)
            hook = request(svc.base, "POST", "/api/me/webhooks", {"url": sink.url, "events": EVENTS},
                           browser(svc.base, me.access))
            if hook.status != 201:
                raise RuntimeError(f"creating the webhook of {p.email} answered {hook.status}")
            h = {"Authorization": f"Bearer {p.access}"}
            request(svc.base, "POST", "/discovery/conversation", None, h)
            for step, text in ANSWERS.items():
                request(svc.base, "PUT", f"/discovery/conversation/me/answers/{step}", {"text": text}, h)
            c = request(svc.base, "POST", "/discovery/conversation/me/complete", None, h)
            if c.status != 201:
                raise RuntimeError(f"completing the setup of {p.email} answered {c.status}")
            p.version, p.text = c.json()["version"], c.json()[EDITABLE]
        tally = Tally()
        failed: list[str] = []
        totals = {k: 0 for k in ("singles_checked", "batches_checked", "batches_unknown",
                                 "batches_unknown_stored", "profiles_checked", "checkins_checked",
                                 "responses_checked", "completions_checked", "reclassified_checked",
                                 "reflections_checked")}
        activity_missing = activity_answered = reads_missing = reads_answered = 0
        restarts: list[float] = []
        stale_answers = 0  # pg-postmaster: 503s after /readyz was 200 again
        check_times: list[float] = []
        started = time.monotonic()
        for n in range(1, rounds + 1):
            before, reads_before = len(tally.answered_writes), len(tally.answered_reads)
            round_failed: list[str] = []
            if cluster is not None:
                # The database crashes, the service lives on: "restart" is the recovery time.
                outage = round_db_crash(svc, cluster, people, tally, rng, round_failed.append)
                restarts.append(outage["recovered"])
                stale_answers += outage["stale"]
            else:
                round_load(svc, people, tally, rng)
                t = time.monotonic()
                svc = Service(api, url, f"crash-{backend}-r{n}", extra=SERVICE_ENV, workdir=work)
                restarts.append(time.monotonic() - t)
            for p in people:
                stale_answers += sign_in(svc.base, p, stale_ok=cluster is not None)
            t = time.monotonic()
            check_round(db, svc, people, round_failed, totals)
            check_times.append(time.monotonic() - t)
            # every state change answered this round has its activity row (checked); a read's
            # row may have been queued still (measured: the loss window of reads)
            writes, reads = tally.answered_writes[before:], tally.answered_reads[reads_before:]
            logged = {r for (r,) in db.rows("SELECT request_id FROM activity_log WHERE request_id IN ("
                                            + ",".join(f"'{r}'" for r in writes + reads + ["-"]) + ")")}
            missing = [r for r in writes if r not in logged]
            if missing:
                round_failed.append(f"{len(missing)} of {len(writes)} answered state changes have "
                                    f"no activity row, e.g. {missing[0]}")
            activity_answered += len(writes)
            activity_missing += len(missing)
            reads_answered += len(reads)
            reads_missing += sum(1 for r in reads if r not in logged)
            for f in round_failed:
                failed.append(f"round {n}: {f}")
                log(f"FAIL round {n}: {f}")
            if n % 10 == 0 or n == rounds:
                log(f"{backend}: {n}/{rounds} rounds, {tally.acked} writes acknowledged, "
                    f"{len(failed)} failures, {time.monotonic() - started:.0f} s")
        check_deliveries(db, svc, people, sink, failed, totals)
        svc.terminate()
        checks.check(not failed, f"{backend}: {rounds} kill -9 rounds, every invariant held "
                     f"({len(failed)} failures" + (f"; first: {failed[0]}" if failed else "") + ")")
        checks.check(not tally.unexpected, f"{backend}: no unexpected answer ({len(tally.unexpected)}"
                     + (f"; e.g. {tally.unexpected[0]}" if tally.unexpected else "") + ")")
        elapsed = time.monotonic() - started
        figures.append(
            f"{backend}: {rounds} rounds in {elapsed:.0f} s; {tally.sent} requests sent, {tally.acked} "
            f"acknowledged, {tally.unanswered} cut off by the kill (sent, no answer), {tally.refused} "
            f"refused after it, {tally.unavailable} answered 503 while PostgreSQL recovered; failed "
            f"checks: {len(failed)}; "
            + ("kill to ready again" if cluster is not None else "restart") + " p50 "
            f"{sorted(restarts)[len(restarts) // 2]:.2f} s"
            + (f" ({stale_answers} requests (reads, sign-ins) answered 503 after ready, on pooled connections from "
               f"before the crash)" if cluster is not None else "") + ", checks p50 "
            f"{sorted(check_times)[len(check_times) // 2]:.2f} s")
        # Each round checks everything acknowledged so far again, so these are checks, not writes.
        figures.append(
            f"{backend}: checks over all rounds: {totals['singles_checked']} single-upsert values, "
            f"{totals['batches_checked']} acknowledged batches ({totals['batches_unknown_stored']} of "
            f"{totals['batches_unknown']} cut-off batches found whole, the rest absent), "
            f"{totals['profiles_checked']} profile states, {totals['checkins_checked']} check-ins, "
            f"{totals['responses_checked']} responses, {totals['completions_checked']} completions, "
            f"{totals['reclassified_checked']} rule-classified entries, "
            f"{totals['reflections_checked']} reflection turns; webhooks: {totals['events_delivered']} "
            f"events each received at least once, in {totals['webhook_requests']} requests "
            f"({totals['events_repeated']} events delivered more than once, same webhook-id)")
        figures.append(f"{backend}: activity rows of answered state changes missing after the kill: "
                       f"{activity_missing} of {activity_answered} (checked); of answered reads: "
                       f"{reads_missing} of {reads_answered} (measured: queued, not yet written)")
    finally:
        if svc is not None:
            svc.close()
        if shared is not None:
            shared.close()
        if cluster is not None:
            cluster.close()
        sink.close()
        shutil.rmtree(work, ignore_errors=True)


def run() -> int:
    checks = Checks("crash")
    figures: list[str] = []
    api, _batch = binaries()
    mode = os.environ.get("CRASH_MODE", "short")
    rounds = env_int("CRASH_ROUNDS", 1000 if mode == "long" else 50)
    # A postmaster round waits for PostgreSQL's crash recovery (about 8 s a round on a 2-core
    # machine), so that mode runs fewer rounds unless CRASH_ROUNDS says otherwise.
    postmaster_rounds = env_int("CRASH_ROUNDS", 200 if mode == "long" else 20)
    seed = env_int("CRASH_SEED", random.randrange(1 << 30))
    log(f"crash campaign: {mode} mode, {rounds} rounds per backend ({postmaster_rounds} for "
        f"pg-postmaster), seed {seed}")
    rng = random.Random(seed)
    backends = os.environ.get("CRASH_BACKENDS", "sqlite,postgres,pg-postmaster")
    for backend in [b.strip() for b in backends.split(",") if b.strip()]:
        n = postmaster_rounds if backend == "pg-postmaster" else rounds
        campaign(backend, api, n, rng, checks, figures)
    figures.append(f"seed {seed} (CRASH_SEED to repeat)")
    return checks.report(figures)


if __name__ == "__main__":
    main_wrapper(run)
