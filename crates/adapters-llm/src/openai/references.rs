//! Quotes by reference: the sentences of every answer are numbered in the request (`"1.2"` is
//! step 1's second sentence), the model names its sources by those numbers (a JSON Schema `enum`
//! where the endpoint enforces one, so it cannot name any other), and the client writes the
//! verbatim quotes itself before the domain reads the reply. A small model that cannot copy a
//! sentence exactly can still point at one. A source the model wrote as quoted text (an endpoint
//! without the schema) is left as it is, for the domain to verify.

use domain::discovery::{ExtractionInput, Step};
use domain::model_output::parse_first_object;
use domain::profile::EditableField;
use domain::profile::grounding::sentences;
use domain::profile::provenance::QUOTE_MAX_CHARS;
use serde_json::{Map, Value, json};

/// One numbered sentence of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbered {
    /// `"<step>.<n>"`, n from 1.
    pub id: String,
    pub step: u8,
    /// The sentence as the person wrote it.
    pub text: String,
}

/// Every sentence of every answer given, numbered, in step order.
#[must_use]
pub fn number(input: &ExtractionInput) -> Vec<Numbered> {
    Step::all()
        .flat_map(|step| {
            let answer = input.answer(step).unwrap_or_default();
            sentences(answer)
                .into_iter()
                .enumerate()
                .map(move |(i, text)| Numbered {
                    id: format!("{}.{}", step.get(), i + 1),
                    step: step.get(),
                    text: text.to_owned(),
                })
        })
        .collect()
}

/// The steps a field's sources may come from: its own answer, steps 1-5 for the overlap
/// narrative, the goal's own answer for a goal.
#[must_use]
pub fn steps_of(field: EditableField) -> std::ops::RangeInclusive<u8> {
    match field {
        EditableField::LoveSummary => 1..=1,
        EditableField::StrengthSummary => 2..=2,
        EditableField::MissionSummary => 3..=3,
        EditableField::VocationSummary => 4..=4,
        EditableField::OverlapNarrative => 1..=5,
        EditableField::NearTermGoalSummary => 6..=6,
        EditableField::LongTermGoalSummary => 7..=7,
    }
}

/// The ids a field may name.
#[must_use]
pub fn ids_for(field: EditableField, numbered: &[Numbered]) -> Vec<String> {
    let steps = steps_of(field);
    numbered
        .iter()
        .filter(|n| steps.contains(&n.step))
        .map(|n| n.id.clone())
        .collect()
}

/// A step's sentences as the request shows them: `"[1.2] The sentence."`.
#[must_use]
pub fn lines(step: u8, numbered: &[Numbered]) -> Vec<String> {
    numbered
        .iter()
        .filter(|n| n.step == step)
        .map(|n| format!("[{}] {}", n.id, n.text))
        .collect()
}

/// The quote a reference stands for: the sentence, or its first [`QUOTE_MAX_CHARS`] characters.
fn quote(sentence: &str) -> String {
    sentence
        .chars()
        .take(QUOTE_MAX_CHARS)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// The reply with every source given by reference (`"1.2"`, `"[1.2]"`, `{"sentence": "1.2"}`)
/// replaced by `{"step", "quote"}` with the sentence it names. A reply with no JSON object is
/// returned as it is, for the domain to refuse with its reason.
#[must_use]
pub fn resolve(raw: &str, numbered: &[Numbered]) -> String {
    let Ok(mut reply) = parse_first_object::<Value>(raw) else {
        return raw.to_owned();
    };
    let Some(sources) = reply.get_mut("sources").and_then(Value::as_object_mut) else {
        return reply.to_string();
    };
    for items in sources.values_mut() {
        let list = match items.take() {
            Value::Array(list) => list,
            single => vec![single],
        };
        *items = Value::Array(
            list.into_iter()
                .map(|i| resolve_item(i, numbered))
                .collect(),
        );
    }
    reply.to_string()
}

fn resolve_item(item: Value, numbered: &[Numbered]) -> Value {
    let reference = match &item {
        Value::String(s) => Some(s.as_str()),
        Value::Object(map) => map.get("sentence").and_then(Value::as_str),
        _ => None,
    };
    let id = reference.map(|r| r.trim().trim_start_matches('[').trim_end_matches(']'));
    match id.and_then(|id| numbered.iter().find(|n| n.id == id)) {
        Some(n) => json!({ "step": n.step, "quote": quote(&n.text) }),
        None => item,
    }
}

/// The sources object of the extractor's schema: for each field, a list of the ids it may name.
#[must_use]
pub fn sources_schema(numbered: &[Numbered], max_items: usize) -> Map<String, Value> {
    EditableField::ALL
        .into_iter()
        .map(|field| {
            let ids = ids_for(field, numbered);
            let schema = if ids.is_empty() {
                // Nothing to name: only the empty list fits.
                json!({ "type": "array", "items": { "type": "string" }, "maxItems": 0 })
            } else {
                json!({
                    "type": "array",
                    "items": { "type": "string", "enum": ids },
                    "maxItems": max_items,
                })
            };
            (field.name().to_owned(), schema)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> ExtractionInput {
        ExtractionInput {
            love: "Restoring old bicycles in my shed. Neighbours bring me every broken frame."
                .into(),
            strength: "I stay calm.".into(),
            mission: "Nobody should be alone.".into(),
            vocation: "Night nurse.".into(),
            drives: "I need to be useful. Under pressure I give more.".into(),
            near_term_goal: Some("Set up a home-visit rota with the parish by next autumn.".into()),
            long_term_goal: None,
        }
    }

    #[test]
    fn every_sentence_is_numbered_within_its_step() {
        let n = number(&input());
        let ids: Vec<&str> = n.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            ["1.1", "1.2", "2.1", "3.1", "4.1", "5.1", "5.2", "6.1"]
        );
        assert_eq!(
            lines(1, &n),
            [
                "[1.1] Restoring old bicycles in my shed.",
                "[1.2] Neighbours bring me every broken frame."
            ]
        );
        assert_eq!(ids_for(EditableField::OverlapNarrative, &n).len(), 7);
        assert_eq!(ids_for(EditableField::LongTermGoalSummary, &n).len(), 0);
    }

    #[test]
    fn references_become_the_sentences_they_name_and_quotes_stay_quotes() {
        let n = number(&input());
        let raw = r#"Here: {"enneagram_type": 2, "sources": {
            "love_summary": ["1.2", "[1.1]"],
            "near_term_goal_summary": [{"sentence": "6.1"}],
            "mission_summary": [{"step": 3, "quote": "Nobody should"}],
            "strength_summary": "9.9"}}"#;
        let out: Value = serde_json::from_str(&resolve(raw, &n)).unwrap();
        assert_eq!(
            out["sources"]["love_summary"],
            json!([
                {"step": 1, "quote": "Neighbours bring me every broken frame."},
                {"step": 1, "quote": "Restoring old bicycles in my shed."}
            ])
        );
        assert_eq!(
            out["sources"]["near_term_goal_summary"][0]["quote"],
            "Set up a home-visit rota with the parish by next autumn."
        );
        assert_eq!(
            out["sources"]["mission_summary"],
            json!([{"step": 3, "quote": "Nobody should"}])
        );
        assert_eq!(
            out["sources"]["strength_summary"],
            json!(["9.9"]),
            "no such sentence"
        );
        assert_eq!(resolve("no json", &n), "no json");
    }

    #[test]
    fn a_long_sentence_is_quoted_by_its_first_three_hundred_characters() {
        let mut i = input();
        i.love = format!("{}.", "word ".repeat(100).trim());
        let n = number(&i);
        let out: Value =
            serde_json::from_str(&resolve(r#"{"sources": {"love_summary": ["1.1"]}}"#, &n))
                .unwrap();
        let quote = out["sources"]["love_summary"][0]["quote"].as_str().unwrap();
        assert!(quote.chars().count() <= QUOTE_MAX_CHARS && i.love.starts_with(quote));
    }
}
