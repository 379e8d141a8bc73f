"""The suite's working-path scenarios: a check-in by e-mail through a real SMTP server, webhooks
through a real receiver (every request verified with `standardwebhooks`), and the address rules
of webhooks (no private destination without WEBHOOK_ALLOW_PRIVATE, no redirect followed)."""

from __future__ import annotations

import base64
import re
import time
from datetime import datetime
from html.parser import HTMLParser

from harness import (
    GOAL_MARKUP, SMTP_FROM_ADDRESS, CheckFailed, Checks, Stack, bearer, browser, deliveries,
    dev_login, discover, expect, log, ping, post_form, register_webhook, request, wait_until,
)
from receivers import Hit, Inbox, Receiver, answer

EVENTS = ["checkin.created", "profile.affirmed", "profile.revised"]
# The offline coach turns an explicit correction into a `reflection` revision (as the API tests do).
CORRECTION = "Actually, my mission is teaching every child to read."


class Scope:
    """The suite's checks, each named after its scenario."""

    def __init__(self, checks: Checks, name: str) -> None:
        self.checks, self.name = checks, name

    def check(self, ok: bool, what: str) -> bool:
        return self.checks.check(ok, f"{self.name}: {what}")

    def require(self, ok: bool, what: str) -> None:
        """A check the rest of the scenario depends on: it stops the scenario when it fails."""
        if not self.check(ok, what):
            raise CheckFailed(f"{what} (the scenario stopped here)")


def ts(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def check_hit(c: Scope, hit: Hit, event_type: str, what: str) -> dict:
    """A delivered request: verified by `standardwebhooks`, the Standard Webhooks headers, and
    the payload `{"id", "type", "created_at", "data"}` with `id` == `webhook-id`."""
    c.check(hit.verify_error is None, f"{what}: Webhook(secret).verify(body, headers) accepts it ({hit.verify_error})")
    sig = hit.headers.get("webhook-signature", "")
    stamp = hit.headers.get("webhook-timestamp", "")
    c.check(sig.startswith("v1,") and stamp.isdigit() and abs(int(stamp) - hit.at) < 30,
            f"{what}: webhook-signature v1,<base64> and a current webhook-timestamp ({sig[:12]}..., {stamp})")
    c.check(hit.headers.get("content-type", "").startswith("application/json"),
            f"{what}: Content-Type application/json ({hit.headers.get('content-type')})")
    try:
        payload = hit.payload()
    except ValueError:
        c.check(False, f"{what}: the body is JSON ({hit.body[:100]!r})")
        return {}
    c.check(sorted(payload) == ["created_at", "data", "id", "type"],
            f"{what}: the payload is {{id, type, created_at, data}} ({sorted(payload)})")
    c.check(payload.get("id") == hit.webhook_id, f"{what}: payload id == webhook-id ({payload.get('id')} vs {hit.webhook_id})")
    c.check(payload.get("type") == event_type, f"{what}: type {event_type} ({payload.get('type')})")
    try:
        ok = ts(payload.get("created_at")) is not None
    except (TypeError, ValueError):
        ok = False
    c.check(ok, f"{what}: created_at is an RFC 3339 time ({payload.get('created_at')})")
    return payload


def secret_is_well_formed(secret: str) -> bool:
    if not secret.startswith("whsec_"):
        return False
    try:
        return len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) == 32
    except ValueError:
        return False


def log_item(stack: Stack, person, webhook_id: str, pred, timeout: float) -> dict | None:
    """The newest delivery of the endpoint's log once `pred(item)` holds, else None."""
    def probe():
        items = deliveries(stack, person, webhook_id)
        return items[0] if items and pred(items[0]) else None
    return wait_until(probe, timeout, 0.2)


# ---------------------------------------------------------------------------------------------
# 1. a check-in by e-mail


class _Tags(HTMLParser):
    """Every start tag of a page, and the text of its blockquotes as a browser would show it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.quotes: list[str] = []
        self._in_quote = False

    def handle_starttag(self, tag, _attrs) -> None:
        self.tags.append(tag)
        if tag == "blockquote":
            self._in_quote = True
            self.quotes.append("")

    def handle_endtag(self, tag) -> None:
        if tag == "blockquote":
            self._in_quote = False

    def handle_data(self, data) -> None:
        if self._in_quote:
            self.quotes[-1] += data


def email_checkins(checks: Checks, a: Stack, inbox: Inbox) -> None:
    c = Scope(checks, "e-mail")
    ada = dev_login(a.base, "ada.mail@example.org")
    discover(a, ada, complete=True)
    r = expect(request(a.base, "PUT", "/api/me/notifications", {"email_checkins": True}, bearer(ada.access)),
               200, "turning e-mail on")
    c.check(r.json().get("email_checkins") is True and r.json().get("email") == ada.email,
            f"PUT /api/me/notifications turns it on for the account's address ({r.json()})")
    expect(request(a.base, "POST", "/discovery/profile/me/affirm", None, bearer(ada.access)), 200, "affirming")
    t0 = time.monotonic()
    checkin = expect(request(a.base, "POST", "/coaching/checkins", None, bearer(ada.access)), 201,
                     "creating a check-in").json()
    mails = inbox.wait(ada.email, 1, timeout=15)
    took = time.monotonic() - t0
    c.require(len(mails) == 1, f"one message arrives for the check-in ({len(mails)} in {took:.1f} s)")
    c.check(took <= 5, f"it arrives within a few seconds ({took:.1f} s)")
    mail = mails[0]
    msg = mail.message()

    c.check(mail.mail_from == SMTP_FROM_ADDRESS, f"envelope sender is SMTP_FROM's address ({mail.mail_from})")
    c.check(mail.rcpt_tos == [ada.email], f"envelope recipient is the person's address only ({mail.rcpt_tos})")
    from_ = [x.addr_spec for x in msg["From"].addresses] if msg["From"] else []
    to = [x.addr_spec for x in msg["To"].addresses] if msg["To"] else []
    c.check(from_ == [SMTP_FROM_ADDRESS] and to == [ada.email], f"From and To headers ({from_}, {to})")

    types = [p.get_content_type() for p in msg.walk() if not p.is_multipart()]
    c.check(msg.get_content_type() == "multipart/alternative" and sorted(types) == ["text/html", "text/plain"],
            f"multipart/alternative with one text/plain and one text/html part ({msg.get_content_type()}, {types})")
    plain, html = msg.get_body(("plain",)), msg.get_body(("html",))
    c.require(plain is not None and html is not None, "both parts can be read")
    text = plain.get_content().replace("\r\n", "\n")
    page = html.get_content().replace("\r\n", "\n")

    goals = checkin.get("quoted_goals") or []
    c.check(GOAL_MARKUP in goals, f"the check-in quotes the goal with markup verbatim ({goals})")
    for goal in goals:
        quoted = "\n".join(f"> {line}" for line in goal.splitlines())
        c.check(quoted in text, f"text part quotes the goal verbatim: {goal!r}")
    c.check(checkin["id"] in text, "text part links to the check-in")
    c.check("&lt;b&gt;v2&lt;" in page and "&amp; rest" in page,
            "HTML part shows the goal's markup escaped (&lt;b&gt;v2&lt;..., &amp;)")
    tags = _Tags()
    tags.feed(page)
    c.check("b" not in tags.tags, f"HTML part has no <b> element ({sorted(set(tags.tags))})")
    c.check(not re.search(r"<\s*/?\s*b\s*>", page, re.I), "HTML part has no raw <b> or </b>")
    c.check(GOAL_MARKUP in tags.quotes, f"a blockquote reads the goal as the person wrote it ({tags.quotes})")

    unsubscribe = msg["List-Unsubscribe"]
    m = re.fullmatch(re.escape(f"<{a.base}/api/notifications/unsubscribe?token=") + r"([A-Za-z0-9._-]+)>",
                     str(unsubscribe or ""))
    c.check(m is not None, f"List-Unsubscribe: <PUBLIC_BASE_URL/api/notifications/unsubscribe?token=...> ({unsubscribe})")
    c.check(str(msg["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click",
            f"List-Unsubscribe-Post: List-Unsubscribe=One-Click ({msg['List-Unsubscribe-Post']})")
    c.require(m is not None, "an unsubscribe token to use")
    token = m.group(1)

    # Forged tokens: one character of the signature changed (the first: a change in the last
    # base64 character may touch only padding bits), and another person's id under this signature.
    eve = dev_login(a.base, "eve.mail@example.org")
    default = request(a.base, "GET", "/api/me/notifications", None, bearer(eve.access)).json()
    c.check(default.get("email_checkins") is False and default.get("email") == eve.email,
            f"e-mail is off by default ({default})")
    claim, signature = token.rsplit(".", 1)
    flipped = ("B" if signature[0] != "B" else "C") + signature[1:]
    forged = {
        "one signature character changed": f"{claim}.{flipped}",
        "another person's id, same signature": token.replace(ada.user_id, eve.user_id),
    }
    c.check(ada.user_id in token and forged["another person's id, same signature"] != token,
            "the token names the person")
    for what, bad in forged.items():
        r = post_form(a.base, f"/api/notifications/unsubscribe?token={bad}", "List-Unsubscribe=One-Click")
        c.check(r.status == 404, f"forged token ({what}) -> 404 ({r.status})")
    still = request(a.base, "GET", "/api/me/notifications", None, bearer(ada.access)).json()
    c.check(still.get("email_checkins") is True, f"forged tokens changed nothing ({still})")

    path = str(unsubscribe)[1:-1].removeprefix(a.base)
    r = post_form(a.base, path, "List-Unsubscribe=One-Click")
    c.check(200 <= r.status < 300, f"one-click POST (form body, no cookie) -> 2xx ({r.status} {r.body[:120]!r})")
    after = request(a.base, "GET", "/api/me/notifications", None, bearer(ada.access)).json()
    c.check(after.get("email_checkins") is False, f"GET /api/me/notifications shows email_checkins false ({after})")

    # Off means off: the next check-in queues no e-mail at all.
    expect(request(a.base, "POST", "/coaching/checkins", None, bearer(ada.access)), 201, "a second check-in")
    rows = a.db.rows("SELECT count(*) FROM deliveries WHERE channel = 'email' AND user_id = ?", ada.user_id)
    c.check(int(rows[0][0]) == 1, f"after unsubscribing, a new check-in queues no e-mail ({rows[0][0]} e-mail deliveries in all)")


def email_afterwards(checks: Checks, inbox: Inbox) -> None:
    """At the end of the run: still exactly the one message for the unsubscribed person."""
    n = len(inbox.to("ada.mail@example.org"))
    checks.check(n == 1, f"e-mail: nothing more reached the unsubscribed person by the end of the run ({n} in all)")


# ---------------------------------------------------------------------------------------------
# 2. webhooks


def webhooks(checks: Checks, a: Stack, hooks: Receiver) -> None:
    c = Scope(checks, "webhooks")
    wes = dev_login(a.base, "wes.hooks@example.org")
    auth = bearer(wes.access)
    discover(a, wes, complete=False)
    r = expect(register_webhook(a, wes, hooks.url("/wes"), EVENTS), 201, "registering a webhook")
    created = r.json()
    secret = created.get("secret", "")
    c.check(secret_is_well_formed(secret), "the secret is whsec_ + base64 of 32 bytes")
    c.check(sorted(created.get("events", [])) == sorted(EVENTS) and created.get("disabled_at") is None
            and created.get("url") == hooks.url("/wes"), f"201 body ({ {k: v for k, v in created.items() if k != 'secret'} })")
    hooks.expect("/wes", secret)
    # A second endpoint subscribed to one event only: it gets that one and nothing else.
    only = expect(register_webhook(a, wes, hooks.url("/wes-affirmed"), ["profile.affirmed"]), 201, "registering").json()
    hooks.expect("/wes-affirmed", only["secret"])
    listed = expect(request(a.base, "GET", "/api/me/webhooks", None, browser(a.base, wes.access)), 200, "listing").json()
    c.check(len(listed) == 2 and all("secret" not in w for w in listed) and secret not in str(listed),
            "the list never shows a secret")
    wid = created["id"]

    def revised(p, r, origin):
        """A revision of `origin`, and the profile in the event is the one the route answered."""
        return p["data"].get("origin") == origin and same_profile(p, r)

    def same_profile(p, r):
        return r is not None and p["data"].get("version") == r.get("version") \
            and p["data"].get("profile_id") == r.get("id")

    # (what, the event it must cause, the action (its answer's JSON, if any), what its data must say)
    steps = [
        ("POST .../test", "ping", lambda: ping(a, wes, wid), lambda p, _r: p["data"] == {}),
        ("completing (extraction revision)", "profile.revised",
         lambda: expect(request(a.base, "POST", "/discovery/conversation/me/complete", None, auth), 201,
                        "completing").json(),
         lambda p, r: revised(p, r, "extraction")),
        ("a reflection turn that revises", "profile.revised", lambda: reflect(c, a, auth),
         lambda p, r: revised(p, r, "reflection")),
        ("PATCH (manual edit)", "profile.revised",
         lambda: expect(request(a.base, "PATCH", "/discovery/profile/me", {"love_summary": "Small tools, shared."}, auth),
                        200, "editing").json(),
         lambda p, r: revised(p, r, "manual_edit") and p["data"].get("love_summary") == "Small tools, shared."),
        ("affirming", "profile.affirmed",
         lambda: expect(request(a.base, "POST", "/discovery/profile/me/affirm", None, auth), 200, "affirming").json(),
         lambda p, r: same_profile(p, r) and p["data"].get("locked") is True
         and p["data"].get("affirmed_at") is not None),
        ("discovery-batch checkins", "checkin.created", lambda: batch_checkins(c, a, auth),
         lambda p, r: r is not None and p["data"].get("id") == r.get("id")
         and p["data"].get("quoted_goals") == r.get("quoted_goals") and p["data"].get("origin") == "batch"),
    ]
    for what, event_type, act, data_ok in steps:
        before = len(hooks.on("/wes"))
        t0 = time.monotonic()
        result = act()
        hits = hooks.wait("/wes", lambda h: len(h) > before, timeout=15)
        took = time.monotonic() - t0
        if not c.check(len(hits) == before + 1, f"{what} -> one {event_type} request ({len(hits) - before} in {took:.1f} s)"):
            continue
        payload = check_hit(c, hits[-1], event_type, what)
        if payload:
            c.check(data_ok(payload, result), f"{what}: the event's data ({str(payload.get('data'))[:240]})")

    time.sleep(1.5)  # a worker pass or two more: nothing else may come
    hits = hooks.on("/wes")
    ids = [h.webhook_id for h in hits]
    c.check(len(hits) == len(steps) and len(set(ids)) == len(ids),
            f"{len(steps)} events, each delivered once with its own id ({len(hits)} requests, {len(set(ids))} ids)")
    log_items = deliveries(a, wes, wid)
    c.check(sorted(d["event_id"] for d in log_items) == sorted(ids)
            and all(d["status"] == "delivered" and d["attempt"] == 1 and d["response_status"] == 204 for d in log_items),
            f"the delivery log lists each as delivered at the first attempt with 204 "
            f"({[(d['event_type'], d['status'], d['attempt'], d['response_status']) for d in log_items]})")
    c.check([d["event_type"] for d in log_items] == [h.payload()["type"] for h in reversed(hits)],
            "the log is newest first, with each event's type")
    affirmed = hooks.on("/wes-affirmed")
    c.check([h.payload().get("type") for h in affirmed] == ["profile.affirmed"],
            f"an endpoint subscribed to profile.affirmed only got just that ({[h.payload().get('type') for h in affirmed]})")
    if affirmed:
        check_hit(c, affirmed[0], "profile.affirmed", "the second endpoint's request")
        same = [h for h in hits if h.payload().get("type") == "profile.affirmed"]
        c.check(bool(same) and same[0].webhook_id == affirmed[0].webhook_id,
                "both endpoints got the same event id for the one event")


def reflect(c: Scope, a: Stack, auth: dict) -> dict:
    """A reflection turn the offline coach answers with a revision; the profile it left."""
    reply = expect(request(a.base, "POST", "/discovery/profile/me/reflect", {"message": CORRECTION}, auth),
                   200, "reflecting").json()
    c.check(bool(reply.get("revisions")), f"the reflection turn revised the profile ({reply.get('revisions')})")
    return reply.get("profile") or {}


def batch_checkins(c: Scope, a: Stack, auth: dict) -> dict | None:
    """`discovery-batch checkins` for the person now due; the check-in as the API lists it."""
    code, line, err = a.batch("checkins")
    c.check(code == 0 and line.get("ok") is True and line.get("report", {}).get("created", 0) >= 1,
            f"discovery-batch checkins creates the due check-in (exit {code}: {line} {err.strip()[:200]})")
    items = expect(request(a.base, "GET", "/coaching/checkins", None, auth), 200, "listing check-ins").json()["items"]
    c.check(len(items) == 1, f"the person has the one check-in ({len(items)})")
    return items[0] if items else None


# ---------------------------------------------------------------------------------------------
# 4. addresses: no private destination unless allowed, no redirect followed

PRIVATE_URLS = [
    "https://127.0.0.1/", "https://10.0.0.1/", "https://[::1]/", "https://localhost/",
    "https://169.254.169.254/latest/meta-data", "https://192.168.1.10/hook", "https://0.0.0.0/",
    "https://[::ffff:127.0.0.1]/", "https://2130706433/",
]


def ssrf_registration(checks: Checks, c_stack: Stack, receiver_port: int) -> None:
    c = Scope(checks, "ssrf")
    sid = dev_login(c_stack.base, "sid.ssrf@example.org")
    for url in PRIVATE_URLS + [f"http://127.0.0.1:{receiver_port}/", "http://93.184.215.14/"]:
        r = register_webhook(c_stack, sid, url, ["checkin.created"])
        fields = [d.get("field") for d in (r.json() or {}).get("error", {}).get("details", [])] if r.status == 422 else []
        c.check(r.status == 422 and fields == ["url"], f"registering {url} -> 422 on `url` ({r.status} {r.body[:160]!r})")
    # The control: a public address (a literal, so no DNS is needed) is accepted.
    r = register_webhook(c_stack, sid, "https://93.184.215.14/hook", ["checkin.created"])
    c.check(r.status == 201, f"a public https address is accepted ({r.status})")
    if r.status == 201:
        d = request(c_stack.base, "DELETE", f"/api/me/webhooks/{r.json()['id']}", None, browser(c_stack.base, sid.access))
        c.check(d.status == 204, f"DELETE -> 204 ({d.status})")


def send_time_guard(checks: Checks, b: Stack, hooks: Receiver) -> None:
    """Endpoints registered while private destinations were allowed, delivered by a
    `discovery-batch deliver` that does not allow them: the address rule holds where the
    connection is made (a literal IP and a name that resolves to loopback), not only at
    registration, so the receiver is never reached."""
    c = Scope(checks, "ssrf at send time")
    sue = dev_login(b.base, "sue.guard@example.org")
    port = hooks.port
    endpoints = {}
    for path, url in (("/guard-ip", f"http://127.0.0.1:{port}/guard-ip"), ("/guard-name", f"http://localhost:{port}/guard-name")):
        r = expect(register_webhook(b, sue, url, ["checkin.created"]), 201, f"registering {url}")
        hooks.expect(path, r.json()["secret"])
        endpoints[path] = r.json()["id"]
        ping(b, sue, r.json()["id"])
    code, line, err = b.batch("deliver", WEBHOOK_ALLOW_PRIVATE="false")
    c.check(code == 0 and line.get("sent") == 0 and line.get("failed") == 2,
            f"deliver without WEBHOOK_ALLOW_PRIVATE attempts both and sends neither ({line} {err.strip()[:200]})")
    for path, wid in endpoints.items():
        item = deliveries(b, sue, wid)[0]
        c.check(item["attempt"] == 1 and item["status"] == "pending" and item["response_status"] is None
                and "not allowed" in (item["error"] or ""),
                f"{path}: the attempt was refused before connecting ({item['status']}, {item['error']})")
        c.check(not hooks.on(path), f"{path}: the receiver was never reached ({len(hooks.on(path))})")


def redirect_not_followed(checks: Checks, a: Stack, hooks: Receiver, target: Receiver) -> None:
    c = Scope(checks, "redirect")
    red = dev_login(a.base, "red.redirect@example.org")
    r = expect(register_webhook(a, red, hooks.url("/moved"), ["checkin.created"]), 201, "registering")
    wid = r.json()["id"]
    hooks.expect("/moved", r.json()["secret"], answer(302, {"Location": target.url("/")}))
    ping(a, red, wid)
    item = log_item(a, red, wid, lambda d: d["attempt"] >= 1, timeout=15)
    c.require(item is not None, "the ping was attempted")
    c.check(item["response_status"] == 302 and item["status"] in ("pending", "failed"),
            f"the attempt is not delivered and records response_status 302 ({item['status']}, {item['response_status']}, {item['error']})")
    hits = hooks.on("/moved")
    c.check(len(hits) == 1, f"the endpoint got the one request ({len(hits)})")
    if hits:
        check_hit(c, hits[0], "ping", "the redirected request")
    time.sleep(1.0)
    c.check(not target.hits, f"the redirect's target (another port) is never hit ({len(target.hits)} requests)")
    log(f"redirect: {item['status']} {item['response_status']} {item['error']}")
