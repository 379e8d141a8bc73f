//! Quotes by reference: the sentences of every answer are numbered in the request (`"1.2"` is
//! step 1's second sentence), the model names its sources by those numbers (a JSON Schema `enum`
//! where the endpoint enforces one, so it cannot name any other), and the client writes the
//! verbatim quotes itself before the domain reads the reply. A small model that cannot copy a
//! sentence exactly can still point at one. A span within a sentence may be named by its words:
//! `"1.2:3-7"` (or `{"sentence": "1.2", "words": [3, 7]}`) is words 3 to 7 of sentence 1.2, and
//! the client writes those words as the person wrote them, with what lies between them. A source
//! the model wrote as quoted text (an endpoint without the schema) is left as it is, for the
//! domain to verify.

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
/// replaced by `{"step", "quote"}` with the sentence it names, each source once per field, in
/// `sources` and in `type_sources`. A reply with no JSON object is returned as it is, for the
/// domain to refuse with its reason.
#[must_use]
pub fn resolve(raw: &str, numbered: &[Numbered]) -> String {
    let Ok(mut reply) = parse_first_object::<Value>(raw) else {
        return raw.to_owned();
    };
    if let Some(items) = reply.get_mut("type_sources") {
        resolve_list(items, numbered);
    }
    let Some(sources) = reply.get_mut("sources").and_then(Value::as_object_mut) else {
        return reply.to_string();
    };
    for items in sources.values_mut() {
        resolve_list(items, numbered);
    }
    reply.to_string()
}

/// One list of references (or a single one) resolved in place, each source once.
fn resolve_list(items: &mut Value, numbered: &[Numbered]) {
    let list = match items.take() {
        Value::Array(list) => list,
        single => vec![single],
    };
    // A sentence named twice for one field is one source (a schema's `enum` cannot say "each at
    // most once", and small models repeat themselves).
    let mut resolved: Vec<Value> = Vec::with_capacity(list.len());
    for item in list.into_iter().map(|i| resolve_item(i, numbered)) {
        if !resolved.contains(&item) {
            resolved.push(item);
        }
    }
    *items = Value::Array(resolved);
}

/// A reference: a sentence's id and, for a span within it, its first and last word (from 1).
fn reference(item: &Value) -> Option<(&str, Option<(usize, usize)>)> {
    let (text, words) = match item {
        Value::String(s) => (s.as_str(), None),
        Value::Object(map) => {
            let words = map.get("words").and_then(Value::as_array).map(|w| {
                let n = |i: usize| {
                    w.get(i)
                        .and_then(Value::as_u64)
                        .and_then(|n| usize::try_from(n).ok())
                };
                (n(0), n(1))
            });
            let words = match words {
                None => None,
                Some((Some(from), Some(to))) if w_len_ok(from, to) => Some((from, to)),
                // A span that is not two word numbers names nothing the service can write.
                Some(_) => return None,
            };
            (map.get("sentence")?.as_str()?, words)
        }
        _ => return None,
    };
    let text = text.trim().trim_start_matches('[').trim_end_matches(']');
    // "1.2:3-7": words 3 to 7 of sentence 1.2.
    match (text.split_once(':'), words) {
        (Some((id, span)), None) => {
            let (from, to) = span.split_once('-')?;
            let (from, to) = (from.trim().parse().ok()?, to.trim().parse().ok()?);
            w_len_ok(from, to).then_some((id.trim(), Some((from, to))))
        }
        (Some(_), Some(_)) => None,
        (None, words) => Some((text, words)),
    }
}

const fn w_len_ok(from: usize, to: usize) -> bool {
    from >= 1 && from <= to
}

/// Words `from` to `to` (from 1) of `sentence`, verbatim with what lies between them; `None`
/// when the sentence has fewer words.
fn span(sentence: &str, from: usize, to: usize) -> Option<&str> {
    let words = crate::offline::text::words(sentence);
    let (start, _) = words.get(from - 1)?;
    let (at, last) = words.get(to - 1)?;
    Some(&sentence[*start..at + last.len()])
}

fn resolve_item(item: Value, numbered: &[Numbered]) -> Value {
    let Some((id, words)) = reference(&item) else {
        return item;
    };
    let Some(n) = numbered.iter().find(|n| n.id == id) else {
        return item;
    };
    let text = match words {
        None => Some(n.text.as_str()),
        Some((from, to)) => span(&n.text, from, to),
    };
    match text {
        Some(text) => json!({ "step": n.step, "quote": quote(text) }),
        // Words past the sentence's end: left as written, so it verifies as nothing.
        None => item,
    }
}

/// The most sentences the type may name.
pub const TYPE_SOURCES_MAX: usize = 2;

/// The schema of `type_sources`: one or two of the drives answer's (step 5) sentence numbers.
#[must_use]
pub fn type_sources_schema(numbered: &[Numbered]) -> Value {
    let ids: Vec<&str> = numbered
        .iter()
        .filter(|n| n.step == 5)
        .map(|n| n.id.as_str())
        .collect();
    if ids.is_empty() {
        return json!({ "type": "array", "items": { "type": "string" }, "maxItems": 0 });
    }
    json!({
        "type": "array",
        "items": { "type": "string", "enum": ids },
        "minItems": 1,
        "maxItems": TYPE_SOURCES_MAX,
    })
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
            "love_summary": ["1.2", "[1.1]", "1.2", "[1.2]"],
            "near_term_goal_summary": [{"sentence": "6.1"}],
            "mission_summary": [{"step": 3, "quote": "Nobody should"}],
            "strength_summary": "9.9"},
            "type_sources": ["5.2", "5.2"]}"#;
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
        assert_eq!(
            out["type_sources"],
            json!([{"step": 5, "quote": "Under pressure I give more."}])
        );
        assert_eq!(resolve("no json", &n), "no json");
    }

    #[test]
    fn a_span_given_as_word_offsets_is_written_out_verbatim() {
        let n = number(&input());
        let raw = r#"{"sources": {
            "love_summary": ["1.1:2-4", {"sentence": "1.2", "words": [3, 6]}],
            "near_term_goal_summary": ["6.1: 1 - 5"],
            "mission_summary": ["3.1:3-9", "3.1:2-1", "3.1:0-2", {"sentence": "3.1", "words": [2]}]}}"#;
        let out: Value = serde_json::from_str(&resolve(raw, &n)).unwrap();
        assert_eq!(
            out["sources"]["love_summary"],
            json!([
                {"step": 1, "quote": "old bicycles in"},
                {"step": 1, "quote": "me every broken frame"}
            ])
        );
        // "home-visit" is two words; the hyphen between them is the person's.
        assert_eq!(
            out["sources"]["near_term_goal_summary"][0]["quote"],
            "Set up a home-visit"
        );
        // Past the sentence's end, backwards, from 0, one number: each left as written.
        assert_eq!(
            out["sources"]["mission_summary"],
            json!(["3.1:3-9", "3.1:2-1", "3.1:0-2", {"sentence": "3.1", "words": [2]}])
        );
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
