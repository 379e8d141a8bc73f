"""The suite's fault scenarios: a receiver down then up (once waiting out the real 30 s retry,
once making the row due by SQL), a receiver answering 500 five times, the SMTP server down, a
`discovery-batch deliver` killed with SIGKILL mid-attempt, and (PostgreSQL only) 1,000 events
delivered by three workers at once.

Moving time: the retry waits (30 s, 2 min, 10 min, ...) and the 120 s lease are real. Apart from
the one real 30 s wait (which runs beside the other scenarios, so it costs nothing), the suite
makes a row due, or ends a lease, by SQL on the test database (`Db.make_due`,
`Db.expire_lease`), and checks the schedule itself from the delivery log's
`next_attempt_at - last_attempt_at`."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

from harness import (
    ANSWERS, Checks, Stack, bearer, deliveries, dev_login, discover, expect, free_port, last_json, log,
    ping, register_webhook, request, start_stack, wait_until,
)
from receivers import Inbox, Receiver, answer, fail_first
from scenarios import Scope, check_hit, log_item, ts

# docs/api.md: retried after about 30 s, 2 min, 10 min, 1 h, 6 h and 24 h.
RETRY_SCHEDULE = [30, 120, 600, 3600, 6 * 3600, 24 * 3600]


def wait_seconds(item: dict) -> float:
    return (ts(item["next_attempt_at"]) - ts(item["last_attempt_at"])).total_seconds()


def hook(c: Scope, stack: Stack, email: str, receiver: Receiver, path: str, behaviour=None):
    """A person with a webhook at `receiver`'s `path` (which knows its secret); a ping queued."""
    person = dev_login(stack.base, email)
    r = expect(register_webhook(stack, person, receiver.url(path), ["checkin.created"]), 201, "registering")
    receiver.expect(path, r.json()["secret"], behaviour)
    wid = r.json()["id"]
    ping(stack, person, wid)
    return person, wid


# ---------------------------------------------------------------------------------------------
# receiver down, then up


class RealRetry:
    """The receiver is down for the first attempt and up right after; the retry is left to the
    real schedule (about 30 s), checked at the end of the run."""

    def __init__(self, checks: Checks, a: Stack) -> None:
        self.c = Scope(checks, "down-then-up, real 30 s wait")
        self.a = a
        self.receiver = Receiver("late", free_port())
        self.person, self.wid = hook(self.c, a, "rae.late@example.org", self.receiver, "/late")
        self.first = log_item(a, self.person, self.wid, lambda d: d["attempt"] >= 1, timeout=15)
        self.c.require(self.first is not None, "the first attempt was made")
        f = self.first
        self.c.check(f["status"] == "pending" and f["response_status"] is None and f["error"],
                     f"with the port closed the attempt fails and stays pending ({f['status']}, {f['error']})")
        self.c.check(27 <= wait_seconds(f) <= 33, f"the next attempt is due about 30 s later ({wait_seconds(f):.1f} s)")
        self.receiver.start()
        log(f"real retry: first attempt failed ({f['error']}); due again at {f['next_attempt_at']}")

    def finish(self) -> None:
        f = self.first
        due_in = (ts(f["next_attempt_at"]).timestamp() - time.time())
        hits = self.receiver.wait("/late", lambda h: len(h) >= 1, timeout=max(due_in, 0) + 15)
        if not self.c.check(len(hits) == 1, f"delivered once the receiver is up ({len(hits)} requests)"):
            return
        hit = hits[0]
        self.c.check(hit.webhook_id == f["event_id"], f"same webhook-id as the failed attempt ({hit.webhook_id})")
        waited = hit.at - ts(f["last_attempt_at"]).timestamp()
        self.c.check(28 <= waited <= 40, f"the retry came on the schedule, about 30 s after the first ({waited:.1f} s)")
        check_hit(self.c, hit, "ping", "the retried request")
        item = log_item(self.a, self.person, self.wid, lambda d: d["status"] == "delivered", timeout=5)
        self.c.check(item is not None and item["attempt"] == 2, f"the log shows it delivered at attempt 2 ({item})")
        self.receiver.stop()


def down_then_up(checks: Checks, a: Stack) -> None:
    c = Scope(checks, "down-then-up")
    receiver = Receiver("down-up", free_port())
    person, wid = hook(c, a, "rob.down@example.org", receiver, "/down")
    first = log_item(a, person, wid, lambda d: d["attempt"] >= 1, timeout=15)
    c.require(first is not None, "the first attempt was made")
    c.check(first["status"] == "pending" and first["response_status"] is None,
            f"port closed: attempt 1 failed, pending ({first['status']}, {first['error']})")
    receiver.start()
    try:
        c.check(a.db.make_due("webhook_id = ?", wid) == 1, "the row made due by SQL")
        hits = receiver.wait("/down", lambda h: len(h) >= 1, timeout=15)
        c.require(len(hits) == 1, f"delivered once the receiver is up ({len(hits)})")
        c.check(hits[0].webhook_id == first["event_id"], f"same webhook-id ({hits[0].webhook_id} vs {first['event_id']})")
        check_hit(c, hits[0], "ping", "the retried request")
        item = log_item(a, person, wid, lambda d: d["status"] == "delivered", timeout=5)
        c.check(item is not None and item["attempt"] == 2 and item["response_status"] == 204,
                f"the log: delivered at attempt 2 with 204 ({item})")
    finally:
        receiver.stop()


# ---------------------------------------------------------------------------------------------
# 500 five times, then 200


def five_failures(checks: Checks, a: Stack, hooks: Receiver) -> None:
    c = Scope(checks, "500 x5 then 200")
    person, wid = hook(c, a, "fay.flaky@example.org", hooks, "/flaky", fail_first(5, 500))
    for k in range(1, 6):
        item = log_item(a, person, wid, lambda d, k=k: d["attempt"] >= k, timeout=15)
        c.require(item is not None, f"attempt {k} was made")
        c.check(item["attempt"] == k and item["status"] == "pending" and item["response_status"] == 500
                and "500" in (item["error"] or ""),
                f"attempt {k}: pending, response_status 500 ({item['attempt']}, {item['status']}, {item['response_status']}, {item['error']})")
        c.check(abs(wait_seconds(item) - RETRY_SCHEDULE[k - 1]) <= 3,
                f"after attempt {k} the next is due {RETRY_SCHEDULE[k - 1]} s later ({wait_seconds(item):.1f} s)")
        c.check(a.db.make_due("webhook_id = ?", wid) == 1, f"the row made due by SQL after attempt {k}")
    item = log_item(a, person, wid, lambda d: d["status"] == "delivered", timeout=15)
    c.check(item is not None and item["attempt"] == 6 and item["response_status"] == 200 and item["error"] is None,
            f"attempt 6 delivered with 200 ({item})")
    hits = hooks.on("/flaky")
    c.check([h.status for h in hits] == [500] * 5 + [200], f"the receiver answered 500 x5 then 200 ({[h.status for h in hits]})")
    c.check(len({h.webhook_id for h in hits}) == 1 and item is not None and hits[0].webhook_id == item["event_id"],
            f"every attempt carried the same webhook-id ({sorted({h.webhook_id for h in hits})})")
    for n, h in enumerate(hits, 1):
        check_hit(c, h, "ping", f"attempt {n}")
    listed = request(a.base, "GET", "/api/me/webhooks", None, {"Cookie": f"ds_access={person.access}"}).json()
    c.check(listed and listed[0].get("disabled_at") is None, "five failures do not disable the endpoint")


# ---------------------------------------------------------------------------------------------
# the SMTP server down


def smtp_down(checks: Checks, a: Stack, inbox: Inbox) -> None:
    c = Scope(checks, "SMTP down")
    sam = dev_login(a.base, "sam.smtp@example.org")
    discover(a, sam, complete=True, affirm=True)
    expect(request(a.base, "PUT", "/api/me/notifications", {"email_checkins": True}, bearer(sam.access)), 200, "e-mail on")
    inbox.stop()
    try:
        made = []
        for n in (1, 2):
            r = request(a.base, "POST", "/coaching/checkins", None, bearer(sam.access))
            c.check(r.status == 201, f"check-in {n} is created while SMTP is down ({r.status})")
            if r.status == 201:
                made.append(r.json()["id"])
        q = "SELECT attempt, status, error FROM deliveries WHERE channel = 'email' AND user_id = ?"
        rows = wait_until(lambda: [r for r in a.db.rows(q, sam.user_id) if int(r[0]) >= 1], timeout=15, interval=0.2)
        c.check(len(rows) == 2 and all(r[1] == "pending" and r[2] for r in rows),
                f"both e-mails were attempted and wait for a retry ({rows})")
    finally:
        inbox.start()
    c.check(a.db.make_due("channel = 'email' AND user_id = ?", sam.user_id) == 2, "both rows made due by SQL")
    mails = inbox.wait(sam.email, 2, timeout=15)
    c.check(len(mails) == 2, f"with the server back on the same port both mails arrive ({len(mails)})")
    texts = [m.message().get_body(("plain",)).get_content() for m in mails]
    for cid in made:
        c.check(sum(cid in t for t in texts) == 1, f"check-in {cid[:8]}... has exactly one mail")
    c.check(all(f"> {ANSWERS[6]}" in t for t in texts), "each quotes the goal")
    # The mail server has the messages a moment before the worker stores the outcome.
    q = "SELECT attempt, status FROM deliveries WHERE channel = 'email' AND user_id = ?"
    rows = wait_until(lambda: sorted(a.db.rows(q, sam.user_id)) == [(2, "delivered")] * 2 or None, timeout=10)
    rows = a.db.rows(q, sam.user_id)
    c.check(sorted(rows) == [(2, "delivered")] * 2, f"both delivered at attempt 2 ({rows})")


# ---------------------------------------------------------------------------------------------
# kill -9 of a worker mid-attempt


def killed_worker(checks: Checks, b: Stack, hooks: Receiver) -> None:
    """On a service without its own worker: `discovery-batch deliver` killed with SIGKILL while
    the receiver holds the request (it answers after 5 s)."""
    c = Scope(checks, "kill -9 mid-attempt")
    person, wid = hook(c, b, "kim.killed@example.org", hooks, "/slow", answer(200, delay=5))
    proc = b.spawn_batch("deliver")
    try:
        hits = hooks.wait("/slow", lambda h: len(h) >= 1, timeout=20)
        c.require(len(hits) == 1 and hits[0].status is None, "the request is in flight")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=10)
    c.check(proc.returncode == -signal.SIGKILL, f"deliver died by SIGKILL ({proc.returncode})")
    item = deliveries(b, person, wid)[0]
    c.check(item["status"] == "pending" and item["attempt"] == 0,
            f"the cut attempt was not stored: pending, attempt 0 ({item['status']}, {item['attempt']})")
    lease = b.db.rows("SELECT lease_until FROM deliveries WHERE webhook_id = ?", wid)
    c.check(lease and lease[0][0] not in (None, ""), f"the row is still leased ({lease})")

    code, line, err = b.batch("deliver")
    c.check(code == 0 and line.get("ok") is True and line.get("sent") == 0 and line.get("pending") == 1,
            f"while the lease holds, another deliver leaves it alone (sent 0, pending 1: {line} {err.strip()[:200]})")
    c.check(len(hooks.on("/slow")) == 1, "no second request while the lease holds")

    c.check(b.db.expire_lease("webhook_id = ?", wid) == 1, "the lease ended by SQL")
    code, line, err = b.batch("deliver")
    c.check(code == 0 and line.get("ok") is True and line.get("sent") == 1 and line.get("failed") == 0
            and line.get("pending") == 0, f"deliver again: sent 1, pending 0 ({line} {err.strip()[:200]})")
    hits = hooks.on("/slow")
    c.check(len(hits) == 2 and hits[0].webhook_id == hits[1].webhook_id == item["event_id"],
            f"attempted again with the same webhook-id ({[h.webhook_id for h in hits]})")
    for n, h in enumerate(hits, 1):
        check_hit(c, h, "ping", f"request {n}")
    item = deliveries(b, person, wid)[0]
    c.check(item["status"] == "delivered" and item["attempt"] == 1 and item["response_status"] == 200,
            f"the log: delivered, attempt 1 (the killed one was never stored) ({item['status']}, {item['attempt']})")


# ---------------------------------------------------------------------------------------------
# PostgreSQL: 1,000 events, three workers at once


def fan_out(checks: Checks, api: str, batch: str, url: str, workdir, events: int = 1000) -> list[str]:
    """1,000 pings queued with no worker running; then the service (its worker on) and two
    `discovery-batch deliver` start together. Each event must arrive exactly once."""
    c = Scope(checks, "PostgreSQL fan-out")
    receiver = Receiver("fan", free_port()).start()
    stacks: list[Stack] = []
    figures: list[str] = []
    try:
        quiet = start_stack("api-pg-queue", api, batch, url, workdir, worker=False)
        stacks.append(quiet)
        # A tenth of a second per answer, so each pass of 50 lasts long enough for the workers to overlap.
        person = dev_login(quiet.base, "fan.out@example.org")
        r = expect(register_webhook(quiet, person, receiver.url("/fan"), ["checkin.created"]), 201, "registering")
        wid = r.json()["id"]
        receiver.expect("/fan", r.json()["secret"], answer(204, delay=0.1))
        t0 = time.monotonic()
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda _: ping(quiet, person, wid), range(events)))
        queued_s = time.monotonic() - t0
        pending = quiet.db.rows("SELECT count(*) FROM deliveries WHERE status = 'pending'")
        c.require(int(pending[0][0]) == events, f"{events} pings queued ({pending[0][0]} pending, {queued_s:.1f} s)")
        c.check(not receiver.hits, "nothing delivered while no worker runs")
        quiet.svc.terminate()

        t0 = time.monotonic()
        procs = [quiet.spawn_batch("deliver") for _ in range(2)]
        live = start_stack("api-pg-worker", api, batch, url, workdir, worker=True)
        stacks.append(live)
        outs = [p.communicate(timeout=300) for p in procs]
        hits = receiver.wait("/fan", lambda h: len({x.webhook_id for x in h}) >= events, timeout=120)
        took = time.monotonic() - t0
        lines = []
        for p, (out, err) in zip(procs, outs):
            line = last_json(out)
            lines.append(line)
            c.check(p.returncode == 0 and line.get("ok") is True, f"deliver exits 0 with ok ({p.returncode}: {line} {err.strip()[:200]})")
        time.sleep(1.5)  # a last worker pass: a late duplicate would show now
        hits = receiver.on("/fan")
        ids = [h.webhook_id for h in hits]
        dupes = len(ids) - len(set(ids))
        c.check(len(set(ids)) == events, f"the receiver saw all {events} event ids ({len(set(ids))})")
        c.check(dupes == 0, f"each event id exactly once ({dupes} duplicates; no lease can have run out in {took:.0f} s)")
        if dupes:
            twice = sorted({i for i in ids if ids.count(i) > 1})[:5]
            rows = live.db.rows("SELECT event_id, attempt, status, response_status, error FROM deliveries "
                                "WHERE event_id IN (" + ",".join("?" * len(twice)) + ")", *twice)
            log(f"fan-out: some ids that came twice, with their delivery rows: {rows}")
        failed = live.db.rows("SELECT error, count(*) FROM deliveries WHERE error IS NOT NULL GROUP BY error")
        c.check(not failed, f"no attempt failed ({failed})")
        c.check(all(h.verify_error is None for h in hits), "every request verifies")
        rows = live.db.rows("SELECT status, attempt, count(*) FROM deliveries GROUP BY status, attempt")
        c.check(rows == [("delivered", "1", str(events))], f"all {events} deliveries delivered at attempt 1 ({rows})")
        items = deliveries(live, person, wid, limit=1000)
        c.check(len(items) == events and all(d["status"] == "delivered" for d in items)
                and {d["event_id"] for d in items} == set(ids),
                f"the delivery log lists the {events} as delivered, with the ids received ({len(items)})")
        by_deliver = [ln.get("sent", 0) for ln in lines]
        by_worker = events - sum(by_deliver)
        # Not the contract, the setup: with one worker doing everything nothing was contended.
        c.check(sum(n > 0 for n in by_deliver + [by_worker]) >= 2,
                f"at least two workers took part (deliver {by_deliver}, the service's worker {by_worker})")
        figures.append(f"PostgreSQL fan-out: {events} pings queued in {queued_s:.1f} s; delivered in {took:.1f} s by "
                       f"deliver {by_deliver} + worker {by_worker}; {dupes} duplicates")
    finally:
        for s in stacks:
            s.close()
        receiver.stop()
    return figures
