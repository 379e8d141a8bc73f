//! The JSON Schemas of the two replies (the extractor's profile, the coach's reply), sent where
//! the endpoint can enforce them (structured outputs, see [`super::body::Rung`]). They are written
//! so that a reply the domain would refuse as inconsistent cannot be expressed at all: a type out
//! of 1-9, a triad (it follows from the type), a missing key, an unknown field, a source that is
//! not a `{step, quote}`, and, built per request, a goal summary for a goal the person left empty.
//!
//! Every object lists all its properties as required and forbids others, as OpenAI's strict mode
//! demands. The domain's parser and guards still decide: a schema only narrows what a model can
//! write, on endpoints that enforce it.

use domain::discovery::ExtractionInput;
use domain::profile::EditableField;
use domain::profile::provenance::{QUOTE_MAX_CHARS, SOURCES_PER_FIELD};
use serde_json::{Map, Value, json};

use super::references;

/// A reply's schema and the name it is sent under (`json_schema.name`: `[a-zA-Z0-9_-]{1,64}`).
#[derive(Debug, Clone, PartialEq)]
pub struct ReplySchema {
    pub name: &'static str,
    pub schema: Value,
}

/// The extractor's reply for `input`: `type_sources`, one or two numbers of the drives answer's
/// sentences, `enneagram_type` 1-9, the five summaries, the two goal
/// summaries and `sources` for each of the seven fields, as the numbers of the sentences they
/// rest on ([`super::references`]): each field can name only its own step's sentences (steps
/// 1-5 for the overlap narrative), so a goal's sources are its own step's. A goal the person did
/// not state can only be `null`, and its sources only `[]`.
#[must_use]
pub fn extraction(input: &ExtractionInput) -> ReplySchema {
    let stated = |answer: &Option<String>| answer.as_deref().is_some_and(|a| !a.trim().is_empty());
    let numbered = references::number(input);
    let mut properties = Map::new();
    properties.insert(
        "type_sources".to_owned(),
        references::type_sources_schema(&numbered),
    );
    properties.insert(
        "enneagram_type".to_owned(),
        json!({ "type": "integer", "enum": [1, 2, 3, 4, 5, 6, 7, 8, 9] }),
    );
    for field in EditableField::ALL {
        let prose = match field {
            EditableField::NearTermGoalSummary => goal(stated(&input.near_term_goal)),
            EditableField::LongTermGoalSummary => goal(stated(&input.long_term_goal)),
            _ => json!({ "type": "string" }),
        };
        properties.insert(field.name().to_owned(), prose);
    }
    properties.insert(
        "sources".to_owned(),
        object(references::sources_schema(&numbered, SOURCES_PER_FIELD)),
    );
    ReplySchema {
        name: "discovery_profile",
        schema: object(properties),
    }
}

/// The coach's reply: `message`, `revisions` of the seven editable fields only (at most one
/// each), each with the person's own words it rests on, and `revision_note`.
#[must_use]
pub fn coach() -> ReplySchema {
    let fields: Vec<&str> = EditableField::ALL.iter().map(|f| f.name()).collect();
    let mut revision = Map::new();
    revision.insert(
        "field".to_owned(),
        json!({ "type": "string", "enum": fields }),
    );
    revision.insert("value".to_owned(), json!({ "type": "string" }));
    revision.insert(
        "quotes".to_owned(),
        json!({ "type": "array", "items": quote(), "maxItems": SOURCES_PER_FIELD }),
    );
    let mut properties = Map::new();
    properties.insert("message".to_owned(), json!({ "type": "string" }));
    properties.insert(
        "revisions".to_owned(),
        // One revision per field at most: a model cannot run on writing revisions.
        json!({ "type": "array", "items": object(revision), "maxItems": fields.len() }),
    );
    properties.insert(
        "revision_note".to_owned(),
        json!({ "type": ["string", "null"] }),
    );
    ReplySchema {
        name: "reflection_reply",
        schema: object(properties),
    }
}

/// `schema` within OpenAI's strict subset, which refuses string length limits (`maxLength`) but
/// takes `maxItems`: the same shape without them. The domain caps and checks every length anyway.
#[must_use]
pub fn strict_subset(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| key.as_str() != "maxLength")
                .map(|(key, value)| (key.clone(), strict_subset(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strict_subset).collect()),
        other => other.clone(),
    }
}

/// An object with exactly `properties`, all of them required.
fn object(properties: Map<String, Value>) -> Value {
    let required: Vec<String> = properties.keys().cloned().collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// A goal summary: text or `null` when the person stated the goal, only `null` when not.
fn goal(stated: bool) -> Value {
    if stated {
        json!({ "type": ["string", "null"] })
    } else {
        json!({ "type": "null" })
    }
}

/// A quote of the person's words, at most the domain's length.
fn quote() -> Value {
    json!({ "type": "string", "maxLength": QUOTE_MAX_CHARS })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openai::prompts;

    /// A validator for the keywords these schemas use (`type`, `enum`, `properties`,
    /// `required`, `additionalProperties`, `items`, `maxLength`, `minItems`, `maxItems`), so the tests can say what a
    /// schema admits. It panics on any other keyword: a new one needs a check here first.
    fn admits(schema: &Value, value: &Value) -> bool {
        let schema = schema.as_object().unwrap();
        for key in schema.keys() {
            assert!(
                [
                    "type",
                    "enum",
                    "properties",
                    "required",
                    "additionalProperties",
                    "items",
                    "maxLength",
                    "minItems",
                    "maxItems"
                ]
                .contains(&key.as_str()),
                "unchecked keyword {key}"
            );
        }
        let type_ok = |t: &Value| match t.as_str().unwrap() {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "null" => value.is_null(),
            other => panic!("unchecked type {other}"),
        };
        let types_ok = match &schema["type"] {
            Value::Array(types) => types.iter().any(type_ok),
            single => type_ok(single),
        };
        if !types_ok {
            return false;
        }
        if let Some(allowed) = schema.get("enum")
            && !allowed.as_array().unwrap().contains(value)
        {
            return false;
        }
        if let (Some(max), Some(text)) = (schema.get("maxLength"), value.as_str())
            && text.chars().count() > usize::try_from(max.as_u64().unwrap()).unwrap()
        {
            return false;
        }
        if let (Some(min), Some(list)) = (schema.get("minItems"), value.as_array())
            && list.len() < usize::try_from(min.as_u64().unwrap()).unwrap()
        {
            return false;
        }
        if let (Some(max), Some(list)) = (schema.get("maxItems"), value.as_array())
            && list.len() > usize::try_from(max.as_u64().unwrap()).unwrap()
        {
            return false;
        }
        if let (Some(items), Some(list)) = (schema.get("items"), value.as_array())
            && !list.iter().all(|item| admits(items, item))
        {
            return false;
        }
        if let (Some(properties), Some(map)) = (schema.get("properties"), value.as_object()) {
            let properties = properties.as_object().unwrap();
            let required = schema["required"].as_array().unwrap();
            if required
                .iter()
                .any(|k| !map.contains_key(k.as_str().unwrap()))
            {
                return false;
            }
            if schema["additionalProperties"] == json!(false)
                && map.keys().any(|k| !properties.contains_key(k))
            {
                return false;
            }
            return map
                .iter()
                .all(|(k, v)| properties.get(k).is_none_or(|s| admits(s, v)));
        }
        true
    }

    /// Every object of a schema, wherever it is nested.
    fn objects(schema: &Value, found: &mut Vec<Map<String, Value>>) {
        match schema {
            Value::Object(map) => {
                if map.get("type") == Some(&json!("object")) {
                    found.push(map.clone());
                }
                map.values().for_each(|v| objects(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| objects(v, found)),
            _ => {}
        }
    }

    fn input(near: Option<&str>, long: Option<&str>) -> ExtractionInput {
        ExtractionInput {
            love: "I bake bread for my neighbours.".into(),
            strength: "I stay calm when things go wrong.".into(),
            mission: "Nobody should eat alone.".into(),
            vocation: "I run a small café.".into(),
            drives: "I need harmony. Under pressure I go quiet.".into(),
            near_term_goal: near.map(Into::into),
            long_term_goal: long.map(Into::into),
        }
    }

    fn profile() -> Value {
        let no_sources: Map<String, Value> = EditableField::ALL
            .iter()
            .map(|f| (f.name().to_owned(), json!([])))
            .collect();
        json!({
            "type_sources": ["5.1"],
            "enneagram_type": 9,
            "love_summary": "You bake bread for your neighbours.",
            "strength_summary": "You stay calm.",
            "mission_summary": "Nobody should eat alone.",
            "vocation_summary": "You run a café.",
            "overlap_narrative": "Food and calm bring people together.",
            "near_term_goal_summary": "Open a second café next year.",
            "long_term_goal_summary": null,
            "sources": no_sources,
        })
    }

    #[test]
    fn a_consistent_profile_is_admitted() {
        let schema = extraction(&input(Some("Open a second café next year."), None)).schema;
        let mut reply = profile();
        reply["sources"]["love_summary"] = json!(["1.1"]);
        reply["sources"]["near_term_goal_summary"] = json!(["6.1"]);
        assert!(admits(&schema, &reply));
        reply["near_term_goal_summary"] = Value::Null;
        assert!(admits(&schema, &reply), "a stated goal may still be null");
    }

    type Breaks = Box<dyn Fn(&mut Value)>;

    /// Each way of breaking a consistent profile makes a reply the schema refuses (the goals as
    /// stated: a near-term goal, no long-term one).
    fn assert_none_admitted(broken: Vec<(&str, Breaks)>) {
        let schema = extraction(&input(Some("Open a second café next year."), None)).schema;
        for (what, breaks) in broken {
            let mut reply = profile();
            breaks(&mut reply);
            assert!(!admits(&schema, &reply), "{what} was admitted");
        }
    }

    /// A type outside 1-9 or given as text, or a triad, cannot be expressed.
    #[test]
    fn the_type_must_be_one_to_nine_and_no_triad_is_asked_for() {
        assert_none_admitted(vec![
            ("type 0", Box::new(|r| r["enneagram_type"] = json!(0))),
            ("type 10", Box::new(|r| r["enneagram_type"] = json!(10))),
            (
                "type as text",
                Box::new(|r| r["enneagram_type"] = json!("9")),
            ),
            ("a triad", Box::new(|r| r["triad"] = json!("gut"))),
        ]);
    }

    /// Every summary is required and not null, and so are the sources of each field (and only
    /// of the fields); a goal the person did not state cannot be written.
    #[test]
    fn every_summary_and_its_sources_are_required() {
        assert_none_admitted(vec![
            (
                "no summary",
                Box::new(|r| {
                    r.as_object_mut().unwrap().remove("love_summary");
                }),
            ),
            (
                "a null summary",
                Box::new(|r| r["love_summary"] = Value::Null),
            ),
            (
                "no sources",
                Box::new(|r| {
                    r.as_object_mut().unwrap().remove("sources");
                }),
            ),
            (
                "a goal the person did not state",
                Box::new(|r| r["long_term_goal_summary"] = json!("Open a school.")),
            ),
            (
                "sources of an unknown field",
                Box::new(|r| r["sources"]["triad"] = json!([])),
            ),
            (
                "a field without its sources",
                Box::new(|r| {
                    r["sources"]
                        .as_object_mut()
                        .unwrap()
                        .remove("mission_summary");
                }),
            ),
        ]);
    }

    /// A source is the number of a sentence of the field's own step, as text, and a field has no
    /// more of them than the domain keeps; a goal not stated has none.
    #[test]
    fn a_source_is_a_sentence_number_of_the_fields_own_step() {
        assert_none_admitted(vec![
            (
                "step numbers as sources (extractor.v1)",
                Box::new(|r| r["sources"]["love_summary"] = json!([1])),
            ),
            (
                "no such sentence",
                Box::new(|r| r["sources"]["love_summary"] = json!(["1.2"])),
            ),
            (
                "a sentence of another step",
                Box::new(|r| r["sources"]["love_summary"] = json!(["2.1"])),
            ),
            (
                "a quote instead of a number",
                Box::new(|r| r["sources"]["love_summary"] = json!(["bake bread"])),
            ),
            (
                "a source as an object",
                Box::new(|r| r["sources"]["love_summary"] = json!([{"step": 1, "quote": "bake"}])),
            ),
            (
                "a goal sourced from another step",
                Box::new(|r| r["sources"]["near_term_goal_summary"] = json!(["3.1"])),
            ),
            (
                "a source for a goal not stated",
                Box::new(|r| r["sources"]["long_term_goal_summary"] = json!(["6.1"])),
            ),
            (
                "more sources than the domain keeps",
                Box::new(|r| {
                    r["sources"]["overlap_narrative"] = json!(vec!["1.1"; SOURCES_PER_FIELD + 1]);
                }),
            ),
        ]);
    }

    /// The type rests on one or two sentences of the drives answer.
    #[test]
    fn the_type_rests_on_one_or_two_drives_sentences() {
        assert_none_admitted(vec![
            (
                "a type without a drives sentence",
                Box::new(|r| r["type_sources"] = json!([])),
            ),
            (
                "a type resting on another step",
                Box::new(|r| r["type_sources"] = json!(["1.1"])),
            ),
            (
                "a type resting on three sentences",
                Box::new(|r| r["type_sources"] = json!(["5.1", "5.2", "5.1"])),
            ),
        ]);
    }

    #[test]
    fn a_goal_left_empty_or_blank_can_only_be_null() {
        for (near, long) in [(None, None), (Some(""), Some("  \n"))] {
            let schema = extraction(&input(near, long)).schema;
            for field in ["near_term_goal_summary", "long_term_goal_summary"] {
                assert_eq!(
                    schema["properties"][field],
                    json!({"type": "null"}),
                    "{field}"
                );
            }
        }
        let stated = extraction(&input(Some("a"), Some("b"))).schema;
        assert_eq!(
            stated["properties"]["long_term_goal_summary"],
            json!({"type": ["string", "null"]})
        );
        assert_eq!(
            stated["properties"]["sources"]["properties"]["long_term_goal_summary"]["items"],
            json!({"type": "string", "enum": ["7.1"]})
        );
    }

    #[test]
    fn a_coach_reply_revises_only_editable_fields_with_quotes() {
        let schema = coach().schema;
        let good = json!({
            "message": "You teach now.",
            "revisions": [{"field": "vocation_summary", "value": "You teach.", "quotes": ["I teach"]}],
            "revision_note": "You said: \"I teach\".",
        });
        assert!(admits(&schema, &good));
        assert!(admits(
            &schema,
            &json!({"message": "Hello.", "revisions": [], "revision_note": null})
        ));
        for bad in [
            json!({"message": "Hi.", "revisions": []}),
            json!({"message": "Hi.", "revisions": [], "revision_note": null, "profile": {}}),
            json!({"message": "Hi.", "revisions": [{"field": "triad", "value": "head", "quotes": []}], "revision_note": null}),
            json!({"message": "Hi.", "revisions": [{"field": "enneagram_type", "value": "5", "quotes": []}], "revision_note": null}),
            json!({"message": "Hi.", "revisions": [{"field": "love_summary", "value": "x"}], "revision_note": null}),
            json!({"message": "Hi.", "revisions": [{"field": "love_summary", "value": null, "quotes": []}], "revision_note": null}),
            json!({"message": null, "revisions": [], "revision_note": null}),
            json!({"message": "Hi.", "revisions": vec![json!({"field": "love_summary", "value": "x", "quotes": []}); 8], "revision_note": null}),
            json!({"message": "Hi.", "revisions": [{"field": "love_summary", "value": "x", "quotes": vec!["I bake"; SOURCES_PER_FIELD + 1]}], "revision_note": null}),
        ] {
            assert!(!admits(&schema, &bad), "{bad} was admitted");
        }
    }

    #[test]
    fn every_object_is_closed_and_requires_all_its_properties_as_strict_mode_demands() {
        let mut found = Vec::new();
        objects(&extraction(&input(Some("a"), None)).schema, &mut found);
        objects(&coach().schema, &mut found);
        // The profile and its sources; the reply and a revision.
        assert_eq!(found.len(), 4);
        for object in found {
            assert_eq!(object["additionalProperties"], json!(false));
            let mut properties: Vec<&str> = object["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            let mut required: Vec<&str> = object["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap())
                .collect();
            properties.sort_unstable();
            required.sort_unstable();
            assert_eq!(properties, required);
        }
    }

    #[test]
    fn the_strict_subset_drops_length_limits_only() {
        let full = coach().schema;
        let subset = strict_subset(&full);
        assert!(full.to_string().contains("maxLength"));
        assert!(!subset.to_string().contains("maxLength"));
        assert!(subset.to_string().contains("maxItems"));
        let mut restored = subset.clone();
        restored["properties"]["revisions"]["items"]["properties"]["quotes"]["items"]["maxLength"] =
            json!(QUOTE_MAX_CHARS);
        assert_eq!(restored, full);
    }

    #[test]
    fn the_names_are_valid_schema_names() {
        for name in [extraction(&input(None, None)).name, coach().name] {
            assert!(!name.is_empty() && name.len() <= 64);
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            );
        }
    }

    /// Every property name of `schema`, at any depth.
    fn property_names(schema: &Value, names: &mut Vec<String>) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    names.extend(properties.keys().cloned());
                }
                map.values().for_each(|v| property_names(v, names));
            }
            Value::Array(items) => items.iter().for_each(|v| property_names(v, names)),
            _ => {}
        }
    }

    #[test]
    fn the_prompts_name_every_key_of_their_schema() {
        for (prompt, schema) in [
            (
                prompts::EXTRACTOR,
                extraction(&input(Some("a"), Some("b"))).schema,
            ),
            (prompts::COACH, coach().schema),
        ] {
            let mut names = Vec::new();
            property_names(&schema, &mut names);
            for name in names {
                assert!(prompt.contains(&format!("\"{name}\"")), "{name}");
            }
        }
    }

    /// The fenced blocks of a prompt, in order.
    fn fenced(prompt: &str) -> Vec<String> {
        prompt
            .split("```")
            .skip(1)
            .step_by(2)
            .map(|block| block.trim_start_matches("json").trim().to_owned())
            .collect()
    }

    #[test]
    fn the_extractor_example_fits_the_schema_and_passes_the_domain_s_guards() {
        let blocks = fenced(prompts::EXTRACTOR);
        let answers: Value = serde_json::from_str(&blocks[0]).unwrap();
        // The example shows each answer's numbered sentences; the answer is them, unnumbered.
        let answer = |step: usize| {
            let lines: Vec<&str> = answers["answers"][step - 1]["sentences"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().split_once("] ").unwrap().1)
                .collect();
            (!lines.is_empty()).then(|| lines.join(" "))
        };
        let example_input = ExtractionInput {
            love: answer(1).unwrap(),
            strength: answer(2).unwrap(),
            mission: answer(3).unwrap(),
            vocation: answer(4).unwrap(),
            drives: answer(5).unwrap(),
            near_term_goal: answer(6),
            long_term_goal: answer(7),
        };
        let reply: Value = serde_json::from_str(&blocks[1]).unwrap();
        assert!(
            admits(&extraction(&example_input).schema, &reply),
            "{reply}"
        );
        // The numbers the example gives are those the request would show.
        for (step, lines) in
            (1..=7).map(|s| (s, references::lines(s, &references::number(&example_input))))
        {
            assert_eq!(
                json!(lines),
                answers["answers"][usize::from(step) - 1]["sentences"],
                "step {step}"
            );
        }
        let resolved = references::resolve(&blocks[1], &references::number(&example_input));
        let draft = domain::discovery::ExtractionDraft::parse(&resolved).unwrap();
        let offered = draft.quotes_offered();
        let extraction = draft.guard(&example_input).unwrap();
        assert_eq!(
            extraction.sources.count(),
            offered,
            "every quote of the example verifies"
        );
        assert!(extraction.prose.near_term_goal_summary.is_some());
        assert_eq!(extraction.prose.long_term_goal_summary, None);
        // The example's type rests on a drives sentence that the offline engine reads the same.
        let cited = draft_type_sources(&resolved, &example_input);
        assert_eq!(cited.len(), 1);
        assert_eq!(
            crate::offline::lexicon::clear_reading(&cited[0].quote),
            Some(9)
        );
    }

    fn draft_type_sources(resolved: &str, input: &ExtractionInput) -> Vec<domain::profile::Source> {
        domain::discovery::ExtractionDraft::parse(resolved)
            .unwrap()
            .verified_type_sources(input)
    }

    #[test]
    fn the_coach_example_fits_the_schema() {
        let blocks = fenced(prompts::COACH);
        let reply: Value = serde_json::from_str(blocks.last().unwrap()).unwrap();
        assert!(admits(&coach().schema, &reply), "{reply}");
        assert_eq!(reply["revisions"].as_array().unwrap().len(), 1);
        domain::reflection::CoachReplyDraft::parse(blocks.last().unwrap()).unwrap();
    }
}
