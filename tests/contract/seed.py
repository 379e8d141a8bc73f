"""Seeds the people the contract fuzzing signs in as, and prints their credentials as JSON.

    python3 seed.py http://127.0.0.1:PORT

Every value printed is an access token (the `ds_access` JWT; run.sh sends it as a Bearer token or
as the session cookie, as the pass needs), a personal API key, or an id:

- "person": a person with a discovered, unlocked profile, preferences, logged time (one entry's
  external id is `batch`, which DELETE /integration/task-mappings/batch deletes) and a reflection,
  so edits, reflection and work patterns reach their logic; run.sh uses the token both as a
  Bearer token and as the session cookie (API keys, export);
- "affirmed": a person with an affirmed profile, check-ins and logged time, so the locked-profile
  answers are exercised; "api_key": a personal API key of theirs with all three scopes
  (created through their session cookie, the only credential that may mint one), and "checkin":
  the id of one of their check-ins, not yet answered, for POST /coaching/checkins/{id}/response;
- "webhook": the id of one of "person"'s webhooks, for its test ping and delivery log;
- "drafter": a person whose conversation is under way (two steps answered), so the answers reach
  their logic rather than 409 conversation_completed;
- "sign_out", "sessions", "deleted": three more people, one for each operation that ends the
  credential it is called with (sign-out, revoking a session, deleting one's account), so that
  one of them ending its credential leaves the others' intact; "sessions" has a second session
  to revoke;
- "refresh": the `ds_refresh` cookie of one more person, for POST /api/auth/refresh.

No one here is an admin: dev login never makes one (docs/api.md, "Least privilege"); the admin
operations run with the operator key (`API_KEY`, set by run.sh).
"""

import json
import sys
import urllib.request
from datetime import datetime, timedelta, timezone

BASE = sys.argv[1].rstrip("/")

ANSWERS = [
    "Long walks with my sister, cooking for friends.",
    "Explaining hard ideas simply; patient debugging.",
    "Helping people learn to build things themselves.",
    "Teaching programming and writing tutorials.",
    "I push hard for what is right and get angry at unfairness.",
    "Publish a beginner's course within a year.",
    "Run a small school for self-taught developers.",
]


def call(method, path, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("Origin", BASE)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    with urllib.request.urlopen(request) as response:
        raw = response.read()
        return response.headers, (json.loads(raw) if raw else None)


def cookies_of(email):
    """Signs in (a new session each time) and answers the cookies set, by name."""
    headers, _ = call("POST", "/api/auth/dev-login", {"email": email})
    cookies = {}
    for cookie in headers.get_all("Set-Cookie"):
        name, value = cookie.split(";")[0].split("=", 1)
        cookies[name] = value
    if "ds_access" not in cookies or "ds_refresh" not in cookies:
        raise SystemExit("dev login did not set the session cookies")
    return cookies


def sign_in(email):
    """Signs in; answers the access token (the `ds_access` cookie's value)."""
    return cookies_of(email)["ds_access"]


def bearer(token):
    return {"Authorization": "Bearer " + token}


def session(token):
    """The session cookie (`call` always sends the service's Origin, which unsafe methods need)."""
    return {"Cookie": "ds_access=" + token}


def discover(auth):
    call("POST", "/discovery/conversation", headers=auth)
    for step, text in enumerate(ANSWERS, start=1):
        call("PUT", f"/discovery/conversation/me/answers/{step}", {"text": text}, auth)
    call("POST", "/discovery/conversation/me/complete", headers=auth)


def log_time(auth, prefix):
    now = datetime.now(timezone.utc)
    items = [
        {
            "external_task_id": f"{prefix}-{i}",
            "task_label": "seeded entry",
            "foundation": ["love", "strength", "mission", "vocation", "short_term", "long_term"][i % 6],
            "minutes": 15 + i,
            "occurred_at": (now - timedelta(hours=5 * i)).isoformat(),
        }
        for i in range(24)
    ]
    items[0]["external_task_id"] = "batch"
    call("POST", "/integration/task-mappings/batch", {"items": items}, auth)


def main():
    person = sign_in("contract-person@example.org")
    discover(bearer(person))
    call("GET", "/coaching/preferences", headers=bearer(person))
    log_time(bearer(person), "person")
    call("POST", "/discovery/profile/me/reflect", {"opener": True}, bearer(person))
    # A public address literal: registering needs no name lookup, and the contract server runs
    # no delivery worker, so nothing is sent to it.
    _, webhook = call(
        "POST",
        "/api/me/webhooks",
        {"url": "https://93.184.215.14/contract", "events": ["checkin.created"]},
        session(person),
    )

    affirmed = sign_in("contract-affirmed@example.org")
    discover(bearer(affirmed))
    log_time(bearer(affirmed), "affirmed")
    call("POST", "/discovery/profile/me/affirm", headers=bearer(affirmed))
    for _ in range(3):
        _, checkin = call("POST", "/coaching/checkins", headers=bearer(affirmed))
    _, key = call(
        "POST",
        "/api/me/api-keys",
        {"name": "contract fuzzing", "scopes": ["integration", "profile:read", "coaching"]},
        session(affirmed),
    )

    drafter = sign_in("contract-drafter@example.org")
    call("POST", "/discovery/conversation", headers=bearer(drafter))
    for step, text in enumerate(ANSWERS[:2], start=1):
        call("PUT", f"/discovery/conversation/me/answers/{step}", {"text": text}, bearer(drafter))

    sessions = sign_in("contract-sessions@example.org")
    sign_in("contract-sessions@example.org")

    print(
        json.dumps(
            {
                "person": person,
                "affirmed": affirmed,
                "api_key": key["key"],
                "checkin": checkin["id"],
                "webhook": webhook["id"],
                "drafter": drafter,
                "sign_out": sign_in("contract-sign-out@example.org"),
                "sessions": sessions,
                "deleted": sign_in("contract-deleted@example.org"),
                "refresh": cookies_of("contract-refresh@example.org")["ds_refresh"],
            }
        )
    )


main()
