"""Seeds the people the contract fuzzing signs in as, and prints their credentials as JSON.

    python3 seed.py http://127.0.0.1:PORT

- "bearer": an admin with a discovered, unlocked profile, preferences and logged time (a Bearer
  access token), so edits, reflection, work patterns and the admin routes reach their logic;
- "api_key": a person with an affirmed profile, check-ins and logged time, acting through a
  personal API key, so check-in responses and the locked-profile answers are exercised;
- "throwaway": a third person for the operations that end the credential they are called with
  (sign-out, revoking one's own session, deleting one's account).
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


def sign_in(email):
    headers, _ = call("POST", "/api/auth/dev-login", {"email": email})
    for cookie in headers.get_all("Set-Cookie"):
        if cookie.startswith("ds_access="):
            return {"Authorization": "Bearer " + cookie.split(";")[0].split("=", 1)[1]}
    raise SystemExit("dev login set no access cookie")


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
        call("POST", "/coaching/checkins", headers=person)
    _, key = call("POST", "/api/me/api-keys", {"name": "contract fuzzing"}, person)

    throwaway = sign_in("contract-throwaway@example.org")
    print(
        json.dumps(
            {
                "bearer": admin["Authorization"],
                "api_key": key["key"],
                "throwaway": throwaway["Authorization"],
            }
        )
    )


main()
