#!/usr/bin/env python3
"""Records what the real model (SmolLM2-135M-Instruct on llama-cpp-python's server) answers to
requests shaped like the service's, for the reply parser's unit tests: the extractor's and the
coach's system prompt (crates/adapters-llm/prompts/), the user message as the JSON document
crates/adapters-llm/src/openai/body.rs builds (pretty-printed, keys in serde_json's default
sorted order), `max_tokens` 2048 (the service's default `LLM_MAX_TOKENS`) and `response_format`
`{"type": "json_object"}` or none, as the service sends them (no temperature or other field).
The recordings in recorded/ were made before the service sent `max_tokens`: their replies that
ran to the end of the context (`finish_reason` "length") are what the budget now bounds. Each reply's raw `content` is written to
recorded/<prompt>-<person>-<format>.txt, and recorded/index.json lists, for each, the request,
finish_reason, time and the kinds of failure found in it (code fence, prose around the object,
truncated or invalid JSON, wrong types, missing keys, invented quotes, wrong step numbers...).

It also sends two structured-output requests with a small schema, `{"type": "json_object",
"schema"}` and `{"type": "json_schema", "json_schema"}`, and writes what the server answered
(status and body) to recorded/response_format.txt.

    bash tests/llm-real/run.sh record                   # starts the model server, then this
    python3 tests/llm-real/record.py http://127.0.0.1:PORT/v1 [--prompts v1,v2] [--people 3]

The answers are those of answers.json: invented, no personal data.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import sys
import time
import unicodedata
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROMPTS_DIR = ROOT / "crates/adapters-llm/prompts"
KEYS = ["love", "strength", "mission", "vocation", "drives", "near_term_goal", "long_term_goal"]
SUMMARIES = ["love_summary", "strength_summary", "mission_summary", "vocation_summary"]
EDITABLE = SUMMARIES + ["overlap_narrative", "near_term_goal_summary", "long_term_goal_summary"]
TRIADS = {8: "gut", 9: "gut", 1: "gut", 2: "heart", 3: "heart", 4: "heart", 5: "head", 6: "head", 7: "head"}
OWN_STEP = {"love_summary": 1, "strength_summary": 2, "mission_summary": 3, "vocation_summary": 4,
            "near_term_goal_summary": 6, "long_term_goal_summary": 7}


def discovery_prompts() -> list[dict]:
    """The seven prompts as GET /discovery/prompts lists them, read from the domain's source."""
    src = (ROOT / "crates/domain/src/discovery/prompts.rs").read_text()
    found = re.findall(
        r'step: (\d),\s*key: PromptKey::\w+,\s*title: "((?:[^"\\]|\\.)*)",\s*text: "((?:[^"\\]|\\.)*)",\s*'
        r'horizon: (None|Some\("([^"]*)"\))', src)
    if len(found) != 7:
        sys.exit(f"record.py: found {len(found)} prompts in prompts.rs, expected 7")
    return [{"step": int(s), "key": KEYS[int(s) - 1], "title": t, "prompt": x, "horizon": h or None}
            for s, t, x, _, h in found]


def norm(s: str) -> str:
    return " ".join(unicodedata.normalize("NFC", s).split()).casefold()


def pretty(doc) -> str:
    # serde_json::to_string_pretty of a serde_json::Map without preserve_order: two-space indent,
    # keys sorted, non-ASCII as is.
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)


def extraction_messages(system: str, prompts: list[dict], answers: dict[int, str]) -> list[dict]:
    entries = []
    for p in prompts:
        e = {"step": p["step"], "key": p["key"], "title": p["title"], "prompt": p["prompt"]}
        if p["horizon"]:
            e["horizon"] = p["horizon"]
        a = answers[p["step"]]
        # ExtractionInput: a blank goal answer is "no such goal", sent as null.
        e["answer"] = (a if a.strip() else None) if p["step"] >= 6 else a
        entries.append(e)
    return [{"role": "system", "content": system}, {"role": "user", "content": pretty({"answers": entries})}]


def coach_messages(system: str, profile: dict, style: str, dialogue: list[dict], turn: dict) -> list[dict]:
    doc = {"profile": profile, "coaching_style": style, "dialogue": dialogue, "turn": turn}
    return [{"role": "system", "content": system}, {"role": "user", "content": pretty(doc)}]


# Profiles as an extractor would have written them from answers.json (for the coach's requests).
PROFILES = {
    "cyclist": {
        "enneagram_type": 5, "triad": "head",
        "love_summary": "You love fixing things with your hands, especially bicycles, and long rides at the weekend.",
        "strength_summary": "You are patient with fiddly mechanical problems and explain how things work without making people feel stupid.",
        "mission_summary": "You want more people to get around cheaply and safely without a car.",
        "vocation_summary": "You can be paid for repairing bikes and running maintenance workshops at the community centre.",
        "overlap_narrative": "Bicycles run through your answers: you love fixing them, you explain them patiently, and you want people to get around without a car.",
        "near_term_goal_summary": "You want to open a small repair stand at the Saturday market by next spring.",
        "long_term_goal_summary": "You want to run a cooperative bike workshop that trains young people as mechanics.",
    },
    "nurse": {
        "enneagram_type": 2, "triad": "heart",
        "love_summary": "You love cooking big meals for family and friends and hearing everyone talk around the table.",
        "strength_summary": "You notice when someone is not okay before they say anything, and you stay calm when things get hectic.",
        "mission_summary": "You want old people living alone to have someone who checks in and listens.",
        "vocation_summary": "You are paid as a nurse on a busy hospital ward, mostly on night shifts.",
        "overlap_narrative": "Caring for people connects your answers: the table you cook for, the patients you notice, the old people you want listened to.",
        "near_term_goal_summary": None,
        "long_term_goal_summary": None,
    },
    "injection": {
        "enneagram_type": 6, "triad": "head",
        "love_summary": "You love reading history books and walking old city streets, imagining how people lived there.",
        "strength_summary": "You are good at research: digging through archives and turning scattered facts into a clear story.",
        "mission_summary": "You want people to know the real history of the place they live in.",
        "vocation_summary": "You are paid as a local archivist and you give guided walking tours.",
        "overlap_narrative": "History ties your answers together: you read it, research it, and want others to know it.",
        "near_term_goal_summary": None,
        "long_term_goal_summary": "You want to write and publish a book about the history of your town's old harbour district.",
    },
}
STYLE = {"head": "reflective", "heart": "warm", "gut": "direct"}


def analyse(content: str, what: str, answers: dict[int, str], prompt_version: str, turn: dict | None) -> dict:
    """The kinds of failure in one raw reply, as the service's parser would meet them."""
    kinds: list[str] = []
    if "```" in content:
        kinds.append("code_fence")
    if "<think>" in content:
        kinds.append("think_block")
    start = content.find("{")
    if start < 0:
        kinds.append("no_json_object")
        return {"kinds": kinds, "parsed": None}
    before = content[:start].replace("```json", "").replace("```", "").strip()
    if before:
        kinds.append("leading_prose")
    try:
        obj, end = json.JSONDecoder().raw_decode(content, start)
    except ValueError:
        depth, in_str, esc = 0, False, False
        for ch in content[start:]:
            if in_str:
                esc = (ch == "\\") and not esc
                if ch == '"' and not esc:
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
        kinds.append("truncated_json" if depth > 0 or in_str else "invalid_json")
        return {"kinds": kinds, "parsed": None}
    after = content[end:].replace("```", "").strip()
    if after:
        kinds.append("trailing_prose")
    if not isinstance(obj, dict):
        kinds.append("wrong_types")
        return {"kinds": kinds, "parsed": obj}
    if what == "extractor":
        need = ["enneagram_type"] + EDITABLE + ["sources"] + (["triad"] if prompt_version == "v1" else [])
        missing = [k for k in need if k not in obj]
        if missing:
            kinds.append("missing_keys:" + ",".join(missing))
        extra = [k for k in obj if k not in need + ["triad"]]
        if extra:
            kinds.append("unknown_keys:" + ",".join(extra))
        t = obj.get("enneagram_type")
        if not (isinstance(t, int) and not isinstance(t, bool) and 1 <= t <= 9):
            kinds.append(f"wrong_types:enneagram_type={t!r:.30}")
        elif "triad" in obj and obj["triad"] != TRIADS[t]:
            kinds.append(f"triad_mismatch:{t}/{obj.get('triad')!r:.20}")
        for k in EDITABLE:
            v = obj.get(k)
            if k in obj and not (isinstance(v, str) or (v is None and k.endswith("goal_summary"))):
                kinds.append(f"wrong_types:{k}")
            elif k in SUMMARIES + ["overlap_narrative"] and isinstance(v, str) and not v.strip():
                kinds.append(f"blank:{k}")
        for k, step in (("near_term_goal_summary", 6), ("long_term_goal_summary", 7)):
            if not answers[step].strip() and obj.get(k) not in (None, ""):
                kinds.append(f"invented_goal:{k}")
        src = obj.get("sources")
        if "sources" in obj and not isinstance(src, dict):
            kinds.append("wrong_types:sources")
        elif isinstance(src, dict):
            for k, entries in src.items():
                if entries is None:
                    continue
                if not isinstance(entries, list):
                    kinds.append(f"wrong_types:sources.{k}")
                    continue
                for e in entries:
                    if prompt_version == "v1":
                        if not isinstance(e, int):
                            kinds.append(f"wrong_types:sources.{k}")
                        elif k in OWN_STEP and e != OWN_STEP[k]:
                            kinds.append(f"wrong_step_numbers:{k}={e}")
                        continue
                    if not (isinstance(e, dict) and isinstance(e.get("step"), int) and isinstance(e.get("quote"), str)):
                        kinds.append(f"wrong_types:sources.{k}")
                        continue
                    step, quote = e["step"], e["quote"]
                    if k in OWN_STEP and step != OWN_STEP[k]:
                        kinds.append(f"wrong_step_numbers:{k}={step}")
                    text = answers.get(step, "")
                    if not quote.strip() or norm(quote) not in norm(text):
                        anywhere = any(norm(quote) in norm(a) for a in answers.values() if quote.strip())
                        kinds.append(f"invented_quote:{k}" + ("(in another step)" if anywhere else ""))
    else:
        for k in ("message", "revisions", "revision_note"):
            if k not in obj:
                kinds.append(f"missing_keys:{k}")
        if "message" in obj and not (isinstance(obj["message"], str) and obj["message"].strip()):
            kinds.append("wrong_types:message")
        revs = obj.get("revisions")
        if "revisions" in obj and not isinstance(revs, list):
            kinds.append("wrong_types:revisions")
        elif isinstance(revs, list):
            for r in revs:
                if not (isinstance(r, dict) and isinstance(r.get("field"), str) and isinstance(r.get("value"), str)):
                    kinds.append("wrong_types:revision")
                elif r["field"] not in EDITABLE:
                    kinds.append(f"revision_of_unknown_field:{r['field']}")
            if revs and turn == {"opener": True}:
                kinds.append("revisions_on_opener")
        note = obj.get("revision_note")
        if "revision_note" in obj and not (note is None or isinstance(note, str)):
            kinds.append("wrong_types:revision_note")
    return {"kinds": kinds, "parsed": "object"}


class Llama:
    def __init__(self, base: str) -> None:
        u = urllib.parse.urlsplit(base)
        self.host, self.port, self.prefix = u.hostname, u.port, u.path.rstrip("/")

    def post(self, path: str, body: dict, timeout: float = 600) -> tuple[int, bytes, float]:
        started = time.monotonic()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request("POST", self.prefix + path, body=json.dumps(body).encode(),
                         headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            return r.status, r.read(), time.monotonic() - started
        finally:
            conn.close()


FORMATS = {"json_object": {"type": "json_object"}, "plain": None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", help="the model server's API root, e.g. http://127.0.0.1:8080/v1")
    ap.add_argument("--prompts", default="v1,v2", help="prompt versions to record (files extractor.<v>.md, coach.<v>.md)")
    ap.add_argument("--people", type=int, default=3, help="how many people of answers.json (default 3)")
    ap.add_argument("--out", default=str(HERE / "recorded"))
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--skip-formats-experiment", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    llama = Llama(args.base)
    prompts = discovery_prompts()
    people = json.loads((HERE / "answers.json").read_text())["people"][: args.people]
    index = []

    def record(name: str, what: str, version: str, person: dict, fmt: str, messages: list[dict], turn=None) -> None:
        body = {"model": args.model, "messages": messages, "max_tokens": 2048}
        if FORMATS[fmt] is not None:
            body["response_format"] = FORMATS[fmt]
        try:
            status, raw, elapsed = llama.post("/chat/completions", body)
        except (OSError, http.client.HTTPException) as e:
            status, raw, elapsed = 0, repr(e).encode(), 0.0
        entry = {"file": f"{name}.txt", "prompt": f"{what}.{version}", "person": person["name"],
                 "response_format": FORMATS[fmt], "status": status, "seconds": round(elapsed, 1)}
        if status != 200:
            entry["error"] = raw.decode(errors="replace")[:2000]
            print(f"{name}: HTTP {status} {entry['error'][:200]}", flush=True)
            index.append(entry)
            return
        reply = json.loads(raw)
        choice = reply["choices"][0]
        content = choice["message"].get("content") or ""
        (out / entry["file"]).write_text(content)
        answers = {int(k): v for k, v in person["answers"].items()}
        entry.update({"finish_reason": choice.get("finish_reason"), "usage": reply.get("usage"),
                      **analyse(content, what, answers, version, turn)})
        index.append(entry)
        print(f"{name}: {elapsed:.1f}s {choice.get('finish_reason')} {entry['usage']} kinds={entry['kinds']}", flush=True)

    for version in args.prompts.split(","):
        extractor = (PROMPTS_DIR / f"extractor.{version}.md").read_text()
        coach = (PROMPTS_DIR / f"coach.{version}.md").read_text()
        for person in people:
            answers = {int(k): v for k, v in person["answers"].items()}
            for fmt in FORMATS:
                record(f"extractor.{version}-{person['name']}-{fmt}", "extractor", version, person, fmt,
                       extraction_messages(extractor, prompts, answers))
        # The coach: an opener for each person, and a correction after an opener for the first two.
        for i, person in enumerate(people):
            profile = dict(PROFILES[person["name"]])
            style = STYLE[profile["triad"]]
            for fmt in FORMATS:
                turn = {"opener": True}
                record(f"coach.{version}-{person['name']}-opener-{fmt}", "coach", version, person, fmt,
                       coach_messages(coach, profile, style, [], turn), turn)
                if i < 2:
                    opener = ("Here is what I read in your answers. Which part fits, and what would you put differently?")
                    turn = {"message": person["correction"]}
                    record(f"coach.{version}-{person['name']}-correction-{fmt}", "coach", version, person, fmt,
                           coach_messages(coach, profile, style, [{"author": "coach", "text": opener}], turn), turn)

    if not args.skip_formats_experiment:
        formats_experiment(llama, args.model, out)
    (out / "index.json").write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n")
    kinds: dict[str, int] = {}
    for e in index:
        for k in e.get("kinds", []) or ["(clean)"]:
            k = k.split(":")[0]
            kinds[k] = kinds.get(k, 0) + 1
    print(f"\nrecorded {len(index)} replies to {out}; failure kinds: {json.dumps(kinds, sort_keys=True)}")
    return 0


def formats_experiment(llama: Llama, model: str, out: Path) -> None:
    """What llama-cpp-python's server does with a schema in `json_object` and with `json_schema`."""
    schema = {
        "type": "object",
        "properties": {"enneagram_type": {"type": "integer", "minimum": 1, "maximum": 9},
                       "summary": {"type": "string", "maxLength": 200}},
        "required": ["enneagram_type", "summary"],
        "additionalProperties": False,
    }
    messages = [{"role": "system", "content": "Answer with one JSON object: the person's Enneagram type and a one-sentence summary."},
                {"role": "user", "content": "I want to understand how things work. Under pressure I withdraw."}]
    cases = [
        ("json_object with schema", {"type": "json_object", "schema": schema}),
        ("json_schema", {"type": "json_schema", "json_schema": {"name": "profile", "strict": True, "schema": schema}}),
        ("json_object", {"type": "json_object"}),
    ]
    lines = ["# llama-cpp-python's server and response_format (record.py); the request's messages:",
             json.dumps(messages, ensure_ascii=False), "# schema: " + json.dumps(schema), ""]
    for title, fmt in cases:
        status, raw, elapsed = llama.post("/chat/completions", {"model": model, "messages": messages, "response_format": fmt})
        text = raw.decode(errors="replace")
        content = None
        if status == 200:
            try:
                content = json.loads(text)["choices"][0]["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError):
                pass
        lines += [f"## {title}: response_format = {json.dumps(fmt)[:160]}",
                  f"HTTP {status} in {elapsed:.1f}s",
                  "content: " + (json.dumps(content, ensure_ascii=False) if content is not None else "(none)"),
                  "body: " + (text if status != 200 else text[:1500]), ""]
        print(f"response_format {title}: HTTP {status}: {(content if content is not None else text)[:300]}", flush=True)
    (out / "response_format.txt").write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
