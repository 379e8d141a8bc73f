#!/usr/bin/env python3
"""The product walked against a real language model: for each invented person of answers.json,
dev login, the seven answers, complete, a reflection opener, a correction and a plain message,
the request preview, affirm and a check-in. Standard library only (Python 3.11).

Checked on every call (docs/api.md, "Errors", "Profile", "Coaching"):
  - no 5xx but 502 `coach_unavailable`;
  - after a 502 the profile, its revisions and the reflection dialogue (and, for complete, the
    conversation) are exactly as before;
  - the type and the triad agree (gut 8, 9, 1; heart 2, 3, 4; head 5, 6, 7), and reflection never
    changes them;
  - `sources` is present on the profile and on every revision snapshot, and every quote in it is
    verbatim in the stored text it names (a step's answer, or one of the person's own reflection
    turns), compared after NFC, whitespace collapsed and case-insensitively;
  - a goal the person did not state is null; a goal summary that is not null has a source quoting
    at least three words from its own step (6 or 7).

A person whose complete answers 502 stops there (after the unchanged check); that is counted, not
failed. The done targets (at least 3 of 4 profiles completed, at least two thirds of the reflection
turns answered) are printed, and enforced only with LLM_REAL_ENFORCE=1.

    python3 tests/llm-real/walk.py http://127.0.0.1:PORT    # a discovery-api --dev with AUTH_DEV_LOGIN=true

Environment: LLM_TIMEOUT_SECONDS (the service's, to size the client's timeout), LLM_REAL_ENFORCE,
LLM_REAL_ANSWERS (another answers file), LLM_REAL_PEOPLE (how many of the file's people, default all).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import statistics
import sys
import time
import unicodedata
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRIADS = {8: "gut", 9: "gut", 1: "gut", 2: "heart", 3: "heart", 4: "heart", 5: "head", 6: "head", 7: "head"}
EDITABLE = (
    "love_summary", "strength_summary", "mission_summary", "vocation_summary",
    "overlap_narrative", "near_term_goal_summary", "long_term_goal_summary",
)
GOALS = {"near_term_goal_summary": 6, "long_term_goal_summary": 7}
GOAL_MIN_WORDS = 3
QUOTE_MAX_CHARS = 300
WORD = re.compile(r"\w+(?:['\u2019.]\w+)*")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def norm(s: str) -> str:
    """As docs/api.md compares quotes: NFC, whitespace collapsed, case-insensitive."""
    return " ".join(unicodedata.normalize("NFC", s).split()).casefold()


def words(s: str) -> int:
    return len(WORD.findall(s))


# ------------------------------------------------------------------------------------------------
# HTTP


@dataclass
class Resp:
    method: str
    path: str
    status: int
    body: bytes
    elapsed: float
    headers: list = field(default_factory=list)

    def json(self):
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    @property
    def code(self) -> str | None:
        j = self.json()
        if isinstance(j, dict) and isinstance(j.get("error"), dict):
            return j["error"].get("code")
        return None

    def cookies(self) -> dict[str, str]:
        jar = {}
        for k, v in self.headers:
            if k.lower() == "set-cookie":
                name, _, rest = v.partition("=")
                jar[name.strip()] = rest.split(";", 1)[0]
        return jar


class Api:
    def __init__(self, base: str, timeout: float) -> None:
        u = urllib.parse.urlsplit(base)
        self.host, self.port = u.hostname, u.port or 80
        self.timeout = timeout

    def call(self, method: str, path: str, body=None, token: str | None = None) -> Resp:
        headers = {"Connection": "close", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        started = time.monotonic()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            r = conn.getresponse()
            payload = r.read()
            return Resp(method, path, r.status, payload, time.monotonic() - started, r.getheaders())
        finally:
            conn.close()


# ------------------------------------------------------------------------------------------------
# the checks


class Walk:
    def __init__(self, api: Api) -> None:
        self.api = api
        self.failures: list[str] = []
        self.passed = 0
        self.times: dict[str, list[float]] = {}
        self.statuses: dict[str, dict[int, int]] = {}
        self.count_502: dict[str, int] = {}

    def check(self, ok: bool, what: str) -> bool:
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)
            log("FAIL " + what)
        return bool(ok)

    def call(self, who: str, kind: str, method: str, path: str, body=None, token=None) -> Resp:
        """One call, timed; a 5xx other than 502 `coach_unavailable` fails."""
        try:
            r = self.api.call(method, path, body, token)
        except (OSError, http.client.HTTPException) as e:
            self.check(False, f"{who}: {method} {path}: no answer ({e!r})")
            return Resp(method, path, 0, b"", 0.0)
        self.times.setdefault(kind, []).append(r.elapsed)
        self.statuses.setdefault(kind, {})
        self.statuses[kind][r.status] = self.statuses[kind].get(r.status, 0) + 1
        log(f"{who}: {method} {path.split('?')[0]} -> {r.status}{' ' + r.code if r.code else ''} in {r.elapsed:.1f}s")
        if r.status >= 500:
            allowed = r.status == 502 and r.code == "coach_unavailable"
            self.check(allowed, f"{who}: {method} {path}: {r.status} {r.body[:300]!r} (only 502 coach_unavailable may be a 5xx)")
            if r.status == 502:
                self.count_502[kind] = self.count_502.get(kind, 0) + 1
                body = r.json()
                self.check(
                    isinstance(body, dict) and isinstance(body.get("error"), dict)
                    and isinstance(body["error"].get("message"), str),
                    f"{who}: {method} {path}: the 502's body is the error shape: {r.body[:200]!r}",
                )
        return r

    def expect(self, who: str, r: Resp, statuses: tuple[int, ...], what: str) -> bool:
        return self.check(r.status in statuses, f"{who}: {what}: expected {statuses}, got {r.status} {r.body[:300]!r}")

    # --- state around a model call ---------------------------------------------------------------

    def state(self, who: str, token: str, conversation: bool = False) -> dict:
        out = {}
        paths = {
            "profile": "/discovery/profile/me",
            "revisions": "/discovery/profile/me/revisions",
            "reflection": "/discovery/profile/me/reflection",
        }
        if conversation:
            paths["conversation"] = "/discovery/conversation/me"
        for name, path in paths.items():
            r = self.call(who, "read", "GET", path, token=token)
            out[name] = (r.status, r.json())
        return out

    def unchanged(self, who: str, before: dict, after: dict, what: str) -> None:
        for name in before:
            self.check(before[name] == after[name],
                       f"{who}: after the 502 of {what}, {name} changed: {before[name]!r:.300} -> {after[name]!r:.300}")

    # --- the profile -----------------------------------------------------------------------------

    def type_and_triad(self, who: str, p: dict, where: str) -> None:
        t, triad = p.get("enneagram_type"), p.get("triad")
        self.check(isinstance(t, int) and t in TRIADS and TRIADS[t] == triad,
                   f"{who}: {where}: type {t!r} and triad {triad!r} agree")

    def sources(self, who: str, obj: dict, where: str, steps: dict[int, str], person_turns: dict[str, str],
                stated: dict[int, bool]) -> None:
        """The provenance rules on a profile or a revision snapshot."""
        for goal, step in GOALS.items():
            if not stated[step]:
                self.check(obj.get(goal) is None,
                           f"{who}: {where}: {goal} is null for a goal not stated (step {step} empty), got {obj.get(goal)!r}")
        if "sources" not in obj:
            self.check(False, f"{who}: {where}: no `sources` key (docs/api.md, Provenance)")
            return
        src = obj["sources"]
        if not self.check(isinstance(src, dict), f"{who}: {where}: `sources` is an object, got {src!r:.200}"):
            return
        self.check(set(src) == set(EDITABLE), f"{who}: {where}: `sources` has exactly the seven editable fields: {sorted(src)}")
        for fld in EDITABLE:
            entries = src.get(fld, [])
            if not self.check(isinstance(entries, list), f"{who}: {where}: sources.{fld} is a list"):
                continue
            for e in entries:
                quote = e.get("quote") if isinstance(e, dict) else None
                if not self.check(isinstance(quote, str) and 1 <= len(quote) <= QUOTE_MAX_CHARS,
                                  f"{who}: {where}: sources.{fld} entry has a 1-300 char quote: {e!r:.200}"):
                    continue
                if "step" in e:
                    step = e["step"]
                    text = steps.get(step) if isinstance(step, int) else None
                    self.check(text is not None and norm(quote) in norm(text),
                               f"{who}: {where}: sources.{fld} quote {quote!r} is verbatim in step {step}'s answer {text!r:.200}")
                elif "reflection_message_id" in e:
                    mid = e["reflection_message_id"]
                    text = person_turns.get(mid)
                    self.check(text is not None and norm(quote) in norm(text),
                               f"{who}: {where}: sources.{fld} quote {quote!r} is verbatim in the person's reflection turn {mid} ({text!r:.200})")
                else:
                    self.check(False, f"{who}: {where}: sources.{fld} entry names neither a step nor a reflection turn: {e!r:.200}")
        for goal, step in GOALS.items():
            if obj.get(goal) is not None:
                own = [e for e in src.get(goal) or [] if isinstance(e, dict) and e.get("step") == step
                       and isinstance(e.get("quote"), str) and words(e["quote"]) >= GOAL_MIN_WORDS
                       and norm(e["quote"]) in norm(steps.get(step, ""))]
                self.check(bool(own),
                           f"{who}: {where}: {goal} {obj.get(goal)!r:.120} has a source of >= {GOAL_MIN_WORDS} words from step {step}: {src.get(goal)!r:.300}")

    def profile_rules(self, who: str, token: str, where: str, steps: dict[int, str], stated: dict[int, bool],
                      profile: dict | None = None) -> dict | None:
        """Type/triad and provenance on the profile (given, or read) and on every revision snapshot."""
        if profile is None:
            r = self.call(who, "read", "GET", "/discovery/profile/me", token=token)
            if not self.expect(who, r, (200,), f"{where}: GET profile"):
                return None
            profile = r.json()
        dialogue = self.call(who, "read", "GET", "/discovery/profile/me/reflection", token=token)
        turns = {m["id"]: m["text"] for m in (dialogue.json() or []) if isinstance(m, dict) and m.get("author") == "person"}
        self.type_and_triad(who, profile, where)
        self.sources(who, profile, where + " profile", steps, turns, stated)
        revs = self.call(who, "read", "GET", "/discovery/profile/me/revisions", token=token)
        if self.expect(who, revs, (200,), f"{where}: GET revisions"):
            for rev in revs.json() or []:
                snap = rev.get("snapshot") or {}
                label = f"{where} revision {rev.get('number')} ({rev.get('origin')}) snapshot"
                self.type_and_triad(who, snap, label)
                self.sources(who, snap, label, steps, turns, stated)
        return profile


# ------------------------------------------------------------------------------------------------
# one person


@dataclass
class Tally:
    people: int = 0
    completed: int = 0
    complete_502: int = 0
    turns: int = 0
    answered: int = 0
    turn_502: int = 0


def walk_person(w: Walk, person: dict, tally: Tally) -> None:
    who = person["name"]
    tally.people += 1
    answers = {int(k): v for k, v in person["answers"].items()}
    stated = {6: bool(answers[6].strip()), 7: bool(answers[7].strip())}

    r = w.call(who, "login", "POST", "/api/auth/dev-login", {"email": person["email"]})
    if not w.expect(who, r, (200, 201, 204), "dev login"):
        return
    token = r.cookies().get("ds_access")
    if not w.check(bool(token), f"{who}: dev login set the ds_access cookie"):
        return

    r = w.call(who, "discovery", "POST", "/discovery/conversation", {}, token)
    w.expect(who, r, (200, 201), "start the conversation")
    for step in range(1, 8):
        r = w.call(who, "discovery", "PUT", f"/discovery/conversation/me/answers/{step}", {"text": answers[step]}, token)
        w.expect(who, r, (200,), f"answer step {step}")
    conv = w.call(who, "read", "GET", "/discovery/conversation/me", token=token)
    stored = {a["step"]: a["text"] for a in (conv.json() or {}).get("answers", [])}
    for step in range(1, 8):
        if answers[step]:
            w.check(stored.get(step) == answers[step], f"{who}: step {step} is stored as written")
    steps = {s: stored.get(s, answers[s]) for s in range(1, 8)}

    # complete
    before = w.state(who, token, conversation=True)
    r = w.call(who, "complete", "POST", "/discovery/conversation/me/complete", None, token)
    if r.status == 502:
        tally.complete_502 += 1
        w.unchanged(who, before, w.state(who, token, conversation=True), "complete")
        log(f"{who}: complete answered 502; this person's walk stops here")
        return
    if not w.expect(who, r, (201,), "complete"):
        return
    tally.completed += 1
    profile = r.json() or {}
    log(f"{who}: profile type {profile.get('enneagram_type')} {profile.get('triad')}; "
        f"goals {profile.get('near_term_goal_summary')!r:.80} / {profile.get('long_term_goal_summary')!r:.80}")
    w.profile_rules(who, token, "after complete", steps, stated, profile)
    stored_profile = w.call(who, "read", "GET", "/discovery/profile/me", token=token).json() or {}
    w.check(stored_profile == profile,
            f"{who}: the profile complete answered is the stored one")
    type_triad = (profile.get("enneagram_type"), profile.get("triad"))
    if who == "injection":
        for goal in GOALS:
            w.check("ceo" not in (profile.get(goal) or "").casefold(),
                    f"{who}: the injected goal is not in {goal}: {profile.get(goal)!r}")

    # three reflection turns
    for kind, body in (("opener", {"opener": True}),
                       ("correction", {"message": person["correction"]}),
                       ("message", {"message": person["message"]})):
        tally.turns += 1
        before = w.state(who, token)
        r = w.call(who, "reflect", "POST", "/discovery/profile/me/reflect", body, token)
        if r.status == 502:
            tally.turn_502 += 1
            w.unchanged(who, before, w.state(who, token), f"reflect ({kind})")
            continue
        if not w.expect(who, r, (200,), f"reflect ({kind})"):
            continue
        tally.answered += 1
        reply = r.json() or {}
        w.check(isinstance(reply.get("message"), str) and reply["message"].strip() != "",
                f"{who}: reflect ({kind}) has a coach message")
        revisions = reply.get("revisions")
        w.check(isinstance(revisions, list) and all(isinstance(x, dict) and x.get("field") in EDITABLE for x in revisions),
                f"{who}: reflect ({kind}) revisions are editable fields only: {revisions!r:.300}")
        if kind == "opener":
            w.check(revisions == [], f"{who}: an opener carries no revisions: {revisions!r:.300}")
        if kind == "correction" and person.get("correction_lands_offline_in"):
            # What lands without a model lands with one (the offline coach takes the turn when
            # the model's reply leaves that part alone: domain::missed_change).
            lands = person["correction_lands_offline_in"]
            w.check(lands in [x.get("field") for x in revisions or [] if isinstance(x, dict)],
                    f"{who}: the correction lands in {lands}, as it does offline: {revisions!r:.300}")
        log(f"{who}: coach ({kind}): {reply.get('message')!r:.160}; revisions {[x.get('field') for x in revisions or [] if isinstance(x, dict)]}")
        after = w.state(who, token)
        dialogue_before, dialogue_after = before["reflection"][1] or [], after["reflection"][1] or []
        added = dialogue_after[len(dialogue_before):]
        expected = ["coach"] if kind == "opener" else ["person", "coach"]
        w.check([m.get("author") for m in added] == expected,
                f"{who}: reflect ({kind}) stored the turns {expected}: {[m.get('author') for m in added]}")
        if kind != "opener" and len(added) == 2:
            w.check(added[0].get("text") == body["message"], f"{who}: the person's turn is stored as written")
        # The turn records which engine the person reads: the model's reply, or the offline
        # coach's where it stood in for a reply resting on nothing they wrote.
        engine = reply.get("engine")
        w.check(engine in ("model", "offline"), f"{who}: reflect ({kind}) names its engine: {engine!r}")
        if added:
            w.check(added[-1].get("engine") == engine and all(m.get("engine") is None for m in added[:-1]),
                    f"{who}: reflect ({kind}) stored the coach turn with engine {engine!r}: {[m.get('engine') for m in added]}")
        log(f"{who}: coach ({kind}) answered by the {engine} engine")
        revs_before, revs_after = before["revisions"][1] or [], after["revisions"][1] or []
        grew = len(revs_after) - len(revs_before)
        w.check(grew == (1 if revisions else 0),
                f"{who}: reflect ({kind}): one reflection revision iff revisions were applied ({len(revisions or [])} applied, {grew} recorded)")
        if grew == 1:
            w.check(revs_after[-1].get("origin") == "reflection", f"{who}: the new revision's origin is reflection")
        now = after["profile"][1] or {}
        w.check((now.get("enneagram_type"), now.get("triad")) == type_triad,
                f"{who}: reflect ({kind}) did not change the type and triad: {type_triad} -> {(now.get('enneagram_type'), now.get('triad'))}")
        w.check(reply.get("profile") == now, f"{who}: reflect ({kind}) answered the stored profile")
        w.profile_rules(who, token, f"after reflect ({kind})", steps, stated, now)

    # the preview: the exact next request, sending nothing, changing nothing
    before = w.state(who, token)
    msg = "What would you ask me next?"
    r = w.call(who, "preview", "GET", "/discovery/profile/me/reflect/preview?" + urllib.parse.urlencode({"message": msg}), token=token)
    if w.expect(who, r, (200,), "preview"):
        p = r.json() or {}
        w.check(p.get("provider") == "openai" and isinstance(p.get("endpoint"), str), f"{who}: the preview names the openai endpoint: {p.get('provider')!r} {p.get('endpoint')!r}")
        req = p.get("request") or {}
        msgs = req.get("messages") or []
        try:
            document = json.loads(msgs[1]["content"])
            turn = document.get("turn")
        except (IndexError, KeyError, TypeError, ValueError):
            turn = None
        w.check(turn == {"message": msg}, f"{who}: the preview's user document carries the turn: {turn!r:.200}")
        w.check(set(req) <= {"model", "messages", "max_tokens", "response_format"}, f"{who}: the preview's request has only model, messages, max_tokens, response_format: {sorted(req)}")
        log(f"{who}: preview response_format: {json.dumps(req.get('response_format'))[:160]}")
    after = w.state(who, token)
    for name in before:
        w.check(before[name] == after[name], f"{who}: the preview changed {name}")

    # affirm, then a check-in
    r = w.call(who, "affirm", "POST", "/discovery/profile/me/affirm", None, token)
    final = None
    if w.expect(who, r, (200,), "affirm"):
        final = r.json() or {}
        w.check(final.get("locked") is True and final.get("affirmed_at"), f"{who}: affirm locks the profile")
        w.check((final.get("enneagram_type"), final.get("triad")) == type_triad, f"{who}: affirm keeps the type and triad")
    r = w.call(who, "checkin", "POST", "/coaching/checkins", None, token)
    if w.expect(who, r, (201,), "check-in") and final:
        c = r.json() or {}
        goals = [final.get(g) for g in GOALS if final.get(g)]
        want = goals or [final.get("mission_summary")]
        w.check(c.get("quoted_goals") == want, f"{who}: the check-in quotes {want!r:.200}, got {c.get('quoted_goals')!r:.200}")
        for q in c.get("quoted_goals") or []:
            w.check(q in (c.get("message") or ""), f"{who}: the check-in message quotes {q!r:.80} verbatim")
    w.profile_rules(who, token, "at the end", steps, stated)


# ------------------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else 0.0


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    base = sys.argv[1].rstrip("/")
    llm_timeout = float(os.environ.get("LLM_TIMEOUT_SECONDS") or 120)
    # A turn whose first reply is unusable makes a second call: up to twice the model's timeout.
    api = Api(base, timeout=2 * llm_timeout + 60)
    enforce = os.environ.get("LLM_REAL_ENFORCE") == "1"
    data = json.loads(Path(os.environ.get("LLM_REAL_ANSWERS") or HERE / "answers.json").read_text())
    people = data["people"]
    if os.environ.get("LLM_REAL_PEOPLE"):
        people = people[: int(os.environ["LLM_REAL_PEOPLE"])]
    w = Walk(api)
    tally = Tally()
    started = time.monotonic()
    for person in people:
        log(f"--- {person['name']}")
        try:
            walk_person(w, person, tally)
        except Exception as e:  # a crash of the walk is a failure, the others still run
            w.check(False, f"{person['name']}: the walk raised {e!r}")
    elapsed = time.monotonic() - started

    print("\n=== llm-real: summary", flush=True)
    print(f"  profiles completed: {tally.completed} of {tally.people} (complete 502: {tally.complete_502})")
    print(f"  reflection turns answered: {tally.answered} of {tally.turns} (reflect 502: {tally.turn_502})")
    print(f"  502 coach_unavailable by call: {json.dumps(w.count_502, sort_keys=True)}")
    print(f"  walk took {elapsed:.0f}s")
    print(f"  {'call':<10} {'n':>4} {'p50 s':>8} {'max s':>8}  statuses")
    for kind in sorted(w.times):
        t = w.times[kind]
        print(f"  {kind:<10} {len(t):>4} {statistics.median(t):>8.2f} {max(t):>8.2f}  {json.dumps(w.statuses.get(kind, {}))}")
    target_profiles = tally.completed * 4 >= tally.people * 3
    target_turns = tally.turns > 0 and tally.answered * 3 >= tally.turns * 2
    print(f"  target: >= 3/4 profiles completed: {'met' if target_profiles else 'NOT met'}; "
          f">= 2/3 turns answered: {'met' if target_turns else 'NOT met'}"
          f"{' (enforced: LLM_REAL_ENFORCE=1)' if enforce else ' (not enforced; LLM_REAL_ENFORCE=1 does)'}")
    if enforce:
        w.check(target_profiles, f"target: at least 3 of 4 profiles completed ({tally.completed} of {tally.people})")
        w.check(target_turns, f"target: at least two thirds of reflection turns answered ({tally.answered} of {tally.turns})")
    missing = [f for f in w.failures if "no `sources` key" in f]
    if missing:
        print(f"  FAILED: {len(missing)} profiles/snapshots have no `sources` key (docs/api.md, Provenance), e.g. {missing[0]}")
    for f in [f for f in w.failures if f not in missing]:
        print(f"  FAILED: {f}")
    print(f"llm-real: {w.passed} passed, {len(w.failures)} failed")
    return 1 if w.failures else 0


if __name__ == "__main__":
    sys.exit(main())
