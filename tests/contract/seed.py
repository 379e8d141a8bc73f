"""Seeds the people the contract fuzzing signs in as, and prints their credentials as JSON.

    python3 seed.py http://127.0.0.1:PORT

- "admin": a Bearer access token of an admin with a discovered, unlocked profile, preferences,
  logged time (one entry's external id is `batch`, which DELETE /integration/task-mappings/batch
  deletes), so edits, reflection, work patterns and the admin routes reach their logic;
- "api_key": a personal API key of a person with an affirmed profile, check-ins and logged time,
  so the locked-profile answers are exercised, and "checkin": the id of one of their check-ins,
  not yet answered, for POST /coaching/checkins/{id}/response;
- "drafter": a Bearer access token of a person whose conversation is under way (two steps
  answered), so the answers reach their logic rather than 409 conversation_completed;
- "sign_out", "sessions", "deleted": Bearer access tokens of three more people, one for each
  operation that ends the credential it is called with (sign-out, revoking a session, deleting
  one's account), so that one of them ending its credential leaves the others' intact;
  "sessions" has a second session to revoke;
- "refresh": the `ds_refresh` cookie of one more person, for POST /api/auth/refresh.
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
    return {"Authorization": "Bearer " + cookies_of(email)["ds_access"]}


def token(auth):
    return auth["Authorization"].removeprefix("Bearer ")


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
    admin = sign_in("contract-admin@example.org")
    discover(admin)
    call("GET", "/coaching/preferences", headers=admin)
    log_time(admin, "admin")
    call("POST", "/discovery/profile/me/reflect", {"opener": True}, admin)

    person = sign_in("contract-person@example.org")
    discover(person)
    log_time(person, "person")
    call("POST", "/discovery/profile/me/affirm", headers=person)
    for _ in range(3):
        _, checkin = call("POST", "/coaching/checkins", headers=person)
    _, key = call("POST", "/api/me/api-keys", {"name": "contract fuzzing"}, person)

    drafter = sign_in("contract-drafter@example.org")
    call("POST", "/discovery/conversation", headers=drafter)
    for step, text in enumerate(ANSWERS[:2], start=1):
        call("PUT", f"/discovery/conversation/me/answers/{step}", {"text": text}, drafter)

    sessions = sign_in("contract-sessions@example.org")
    cookies_of("contract-sessions@example.org")

    print(
        json.dumps(
            {
                "admin": token(admin),
                "api_key": key["key"],
                "checkin": checkin["id"],
                "drafter": token(drafter),
                "sign_out": token(sign_in("contract-sign-out@example.org")),
                "sessions": token(sessions),
                "deleted": token(sign_in("contract-deleted@example.org")),
                "refresh": cookies_of("contract-refresh@example.org")["ds_refresh"],
            }
        )
    )


main()
