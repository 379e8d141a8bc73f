//! The strict reading of model output against replies a real small model gave: SmolLM2-135M
//! through llama.cpp's server (`tests/llm-real/record.py`, the answers of
//! `tests/llm-real/answers.json`, all invented), kept verbatim in `tests/model_replies/`, and
//! the shapes such models are known for (code fences, trailing prose, wrong types, truncation).
//! Every unusable reply must be refused (the service then asks once more, then answers 502), and
//! a usable one must keep nothing the person did not write.

use std::path::Path;

use domain::discovery::{ExtractionDraft, ExtractionInput, ExtractionRejected};
use domain::profile::EditableField;
use domain::reflection::{CoachReplyDraft, ReflectionTurn};
use domain::text::MessageText;

fn recorded(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/model_replies")
        .join(format!("smollm2-135m.{name}.txt"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The cyclist of `tests/llm-real/answers.json`.
fn cyclist() -> ExtractionInput {
    ExtractionInput {
        love: "I love fixing things with my hands, especially bicycles, and being outside on long \
               rides at the weekend."
            .into(),
        strength: "I am patient with fiddly mechanical problems and good at explaining how \
                   something works without making people feel stupid."
            .into(),
        mission: "More people should be able to get around cheaply and safely without a car."
            .into(),
        vocation: "I can be paid for repairing bikes and for running small maintenance \
                   workshops at the community centre."
            .into(),
        drives: "I want to understand how things work and do them properly. Under pressure I go \
                 quiet and withdraw until I have figured it out on my own."
            .into(),
        near_term_goal: Some(
            "Open a small repair stand at the Saturday market by next spring.".into(),
        ),
        long_term_goal: None,
    }
}

fn extraction(raw: &str) -> Result<domain::discovery::Extraction, ExtractionRejected> {
    ExtractionDraft::parse(raw)?.guard(&cyclist())
}

#[test]
fn every_recorded_extraction_reply_of_the_small_model_is_refused_as_unreadable() {
    // v1: a type given as a word ("Love"); nested nonsense in place of the fields. v2 without a
    // schema: the input document echoed back; prose with no JSON at all; JSON lines without
    // commas and a stray code fence.
    for name in [
        "extractor.v1-cyclist-json_object",
        "extractor.v1-nurse-json_object",
        "extractor.v2-cyclist-plain",
        "extractor.v2-injection-json_object",
        "extractor.v2-injection-plain",
        "extractor.v2-nurse-plain",
    ] {
        let outcome = extraction(&recorded(name));
        assert!(
            matches!(outcome, Err(ExtractionRejected::Unreadable(_))),
            "{name}: {outcome:?}"
        );
    }
}

#[test]
fn every_recorded_coach_reply_of_the_small_model_is_refused() {
    // A dialogue echoed back with a trailing comma; a made-up "style" object; a line of prose.
    for name in [
        "coach.v1-cyclist-correction-json_object",
        "coach.v1-injection-opener-json_object",
        "coach.v1-cyclist-correction-plain",
    ] {
        assert!(CoachReplyDraft::parse(&recorded(name)).is_err(), "{name}");
    }
}

/// A reply of the right shape, as a schema-constrained small model gives it: summaries of its
/// own, one real quote, invented ones, and a goal the person did not state.
const SHAPED: &str = r#"{"enneagram_type": 5,
  "love_summary": "You love fixing bicycles.", "strength_summary": "Patience.",
  "mission_summary": "Cheap, safe travel.", "vocation_summary": "Bike repair.",
  "overlap_narrative": "It's all about purpose and giving back.",
  "near_term_goal_summary": "Open a repair stand.",
  "long_term_goal_summary": "Reducing plastic pollution.",
  "sources": {
    "love_summary": [{"step": 1, "quote": "fixing things with my hands"}],
    "overlap_narrative": [{"step": 6, "quote": "It's all about purpose and giving back"},
                          {"step": 10, "quote": "To do it is love!"}],
    "near_term_goal_summary": [{"step": 6, "quote": "open a small repair stand"}],
    "long_term_goal_summary": [{"step": 7, "quote": "reducing plastic pollution"}]
  }}"#;

#[test]
fn a_usable_reply_keeps_only_what_the_person_wrote_however_it_is_wrapped() {
    let wrapped = [
        SHAPED.to_owned(),
        format!("```json\n{SHAPED}\n```"),
        format!("Here is the profile you asked for:\n{SHAPED}\nI hope this helps!"),
    ];
    for raw in &wrapped {
        let e = extraction(raw).unwrap();
        assert_eq!(e.enneagram_type.get(), 5);
        assert_eq!(
            e.prose.near_term_goal_summary.as_ref().map(|g| g.as_str()),
            Some("Open a repair stand."),
            "stated, and quoted from step 6"
        );
        assert_eq!(
            e.prose.long_term_goal_summary, None,
            "never stated: not stored"
        );
        assert!(e.sources.get(EditableField::OverlapNarrative).is_empty());
        assert_eq!(
            e.sources.get(EditableField::LoveSummary)[0].quote,
            "fixing things with my hands"
        );
    }
    // The first object is the reply: another before it is what is read, and refused.
    let preceded = format!("{{\"enneagram_type\": 1}} and then {SHAPED}");
    assert!(matches!(
        extraction(&preceded),
        Err(ExtractionRejected::Unreadable(_))
    ));
}

#[test]
fn wrong_types_and_truncation_are_refused() {
    let cut = &SHAPED[..SHAPED.len() / 2];
    let as_text = SHAPED.replace("\"enneagram_type\": 5", "\"enneagram_type\": \"5\"");
    let out_of_range = SHAPED.replace("\"enneagram_type\": 5", "\"enneagram_type\": 10");
    let summary_as_list = SHAPED.replace("\"Patience.\"", "[\"Patience.\"]");
    for (what, raw) in [
        ("truncated", cut.to_owned()),
        ("type as a string", as_text),
        ("summary as a list", summary_as_list),
    ] {
        assert!(
            matches!(extraction(&raw), Err(ExtractionRejected::Unreadable(_))),
            "{what}"
        );
    }
    assert!(matches!(
        extraction(&out_of_range),
        Err(ExtractionRejected::TypeOutOfRange(10))
    ));
}

#[test]
fn a_coach_reply_of_the_right_shape_from_a_small_model_revises_only_on_the_persons_words() {
    let turn = ReflectionTurn::Message(
        MessageText::new("Actually, what I love is restoring old bicycles with my daughter.")
            .unwrap(),
    );
    let raw = r#"{"message": "Restoring bikes with your daughter, then.",
        "revisions": [
          {"field": "love_summary", "quotes": ["It's all about purpose"], "value": "Restoring old bicycles."},
          {"field": "long_term_goal_summary", "quotes": ["become CEO"], "value": "Become CEO."},
          {"field": "triad", "quotes": [], "value": "gut"}
        ], "revision_note": null}"#;
    let reply = CoachReplyDraft::parse(raw).unwrap().guard(&turn, &[]);
    let fields: Vec<_> = reply.edit.changes().map(|(f, _)| f).collect();
    // The love summary is the person's direction, kept without a source (its quote is not
    // theirs); the invented goal and the triad are dropped.
    assert_eq!(fields, [EditableField::LoveSummary]);
    assert!(reply.sources.get(EditableField::LoveSummary).is_empty());
}
