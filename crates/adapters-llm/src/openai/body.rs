//! The chat-completions request bodies, built from the port's input and nothing else: these
//! functions decide exactly which fields leave the server (docs/llm.md lists them). They are pure,
//! so the preview route shows the very body a request would carry.

use domain::discovery::{ExtractionInput, Step};
use domain::ports::CoachRequest;
use domain::profile::EditableField;
use domain::reflection::ReflectionTurn;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value, json};

use super::prompts;
use super::references;
use super::schema::{self, ReplySchema};

/// The most recent dialogue turns the coach sees; older ones are counted, not sent.
pub const DIALOGUE_WINDOW: usize = 20;

/// How the reply's shape is asked for: the rungs of the structured-output ladder, best first.
/// A client starts at the top and steps down one rung each time the endpoint refuses the
/// request because of `response_format` (docs/llm.md, "Structured outputs").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rung {
    /// `{"type": "json_schema", "json_schema": {"name", "strict": true, "schema"}}`, the full
    /// schema: OpenAI's structured outputs as vLLM, llama.cpp's llama-server, Ollama (0.5 and
    /// later) and LM Studio enforce them.
    JsonSchema,
    /// The same within OpenAI's strict subset, without length limits, which OpenAI refuses.
    JsonSchemaStrictSubset,
    /// `{"type": "json_object", "schema"}`: llama-cpp-python's server, which refuses
    /// `json_schema` but turns this schema into a grammar.
    JsonObjectSchema,
    /// `{"type": "json_object"}`: JSON mode, any JSON object.
    JsonObject,
    /// No `response_format`: the prompt alone asks for the shape.
    Text,
}

impl Rung {
    /// Best first.
    pub const ALL: [Self; 5] = [
        Self::JsonSchema,
        Self::JsonSchemaStrictSubset,
        Self::JsonObjectSchema,
        Self::JsonObject,
        Self::Text,
    ];

    /// The position on the ladder, 0 at the top.
    #[must_use]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The rung at `index`; past the bottom, the bottom.
    #[must_use]
    pub fn from_index(index: u8) -> Self {
        Self::ALL
            .get(usize::from(index))
            .copied()
            .unwrap_or(Self::Text)
    }

    /// The rung below, if any.
    #[must_use]
    pub fn next(self) -> Option<Self> {
        Self::ALL.get(usize::from(self.index()) + 1).copied()
    }

    /// A name for logs.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::JsonSchema => "json_schema",
            Self::JsonSchemaStrictSubset => "json_schema without length limits",
            Self::JsonObjectSchema => "json_object with schema",
            Self::JsonObject => "json_object",
            Self::Text => "plain text",
        }
    }

    /// The `response_format` this rung sends for `reply` (`None`: the field is left out).
    #[must_use]
    pub fn response_format(self, reply: &ReplySchema) -> Option<Value> {
        let json_schema = |schema: Value| {
            json!({
                "type": "json_schema",
                "json_schema": { "name": reply.name, "strict": true, "schema": schema },
            })
        };
        match self {
            Self::JsonSchema => Some(json_schema(reply.schema.clone())),
            Self::JsonSchemaStrictSubset => Some(json_schema(schema::strict_subset(&reply.schema))),
            Self::JsonObjectSchema => {
                Some(json!({ "type": "json_object", "schema": reply.schema }))
            }
            Self::JsonObject => Some(json!({ "type": "json_object" })),
            Self::Text => None,
        }
    }
}

/// `{"model", "messages", "max_tokens"?, "response_format"?}`: the only top-level fields ever
/// sent.
#[must_use]
pub fn chat(
    model: &str,
    messages: Vec<Value>,
    max_tokens: Option<u32>,
    rung: Rung,
    reply: &ReplySchema,
) -> Value {
    let mut body = Map::new();
    body.insert("model".to_owned(), Value::String(model.to_owned()));
    body.insert("messages".to_owned(), Value::Array(messages));
    if let Some(max_tokens) = max_tokens {
        body.insert("max_tokens".to_owned(), Value::from(max_tokens));
    }
    if let Some(format) = rung.response_format(reply) {
        body.insert("response_format".to_owned(), format);
    }
    Value::Object(body)
}

/// Keys in the order they are written on the wire; others follow, alphabetically.
const KEY_ORDER: &[&str] = &[
    // The request and its schema keywords.
    "model",
    "messages",
    "role",
    "content",
    "max_tokens",
    "response_format",
    "type",
    "json_schema",
    "name",
    "strict",
    "schema",
    "properties",
    "items",
    "enum",
    "maxLength",
    "minItems",
    "maxItems",
    "required",
    "additionalProperties",
    // The documents of the user message.
    "answers",
    "profile",
    "coaching_style",
    "dialogue",
    "earlier_turns_not_shown",
    "turn",
    "step",
    "key",
    "title",
    "prompt",
    "horizon",
    "answer",
    "sentences",
    "author",
    "text",
    "opener",
    // The replies asked for.
    "type_sources",
    "enneagram_type",
    "triad",
    "love_summary",
    "strength_summary",
    "mission_summary",
    "vocation_summary",
    "overlap_narrative",
    "near_term_goal_summary",
    "long_term_goal_summary",
    "sources",
    "quote",
    "message",
    "revisions",
    "field",
    "quotes",
    "value",
    "revision_note",
];

/// A body or document as it is written out: the same JSON, with each object's keys in reading
/// order ([`KEY_ORDER`]: the step before its answer, the type before the summaries, the sources
/// last) instead of `serde_json`'s alphabetical one. Servers that enforce a schema with a grammar
/// (llama.cpp, Ollama, vLLM) and OpenAI make the model write the keys in the schema's order, so
/// this is the order a model writes its reply in.
#[derive(Debug, Clone, Copy)]
pub struct Wire<'a>(pub &'a Value);

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                // Stable: keys outside the list keep the map's order after the listed ones.
                entries.sort_by_key(|(key, _)| {
                    KEY_ORDER
                        .iter()
                        .position(|k| k == key)
                        .unwrap_or(KEY_ORDER.len())
                });
                let mut out = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    out.serialize_entry(key, &Wire(value))?;
                }
                out.end()
            }
            Value::Array(items) => serializer.collect_seq(items.iter().map(Wire)),
            other => other.serialize(serializer),
        }
    }
}

/// The extractor's messages: the system prompt, the answers as one JSON document (each as its
/// numbered sentences, which the reply's sources name: [`super::references`]), and on the one
/// retry what was wrong with the previous reply.
#[must_use]
pub fn extraction_messages(input: &ExtractionInput, feedback: Option<&str>) -> Vec<Value> {
    let numbered = references::number(input);
    let answers: Vec<Value> = Step::all()
        .map(|step| {
            let prompt = step.prompt();
            let mut entry = Map::new();
            entry.insert("step".to_owned(), json!(step.get()));
            entry.insert("key".to_owned(), json!(prompt.key.key()));
            entry.insert("title".to_owned(), json!(prompt.title));
            entry.insert("prompt".to_owned(), json!(prompt.text));
            if let Some(horizon) = prompt.horizon {
                entry.insert("horizon".to_owned(), json!(horizon));
            }
            entry.insert(
                "sentences".to_owned(),
                json!(references::lines(step.get(), &numbered)),
            );
            Value::Object(entry)
        })
        .collect();
    messages(
        prompts::EXTRACTOR,
        &json!({ "answers": answers }),
        feedback,
        "the profile",
    )
}

/// The coach's messages: the system prompt, the profile, style, recent dialogue and the turn as
/// one JSON document, and on the one retry what was wrong with the previous reply.
#[must_use]
pub fn coach_messages(request: &CoachRequest) -> Vec<Value> {
    let profile = &request.profile;
    let mut fields = Map::new();
    fields.insert(
        "enneagram_type".to_owned(),
        json!(profile.enneagram_type.get()),
    );
    fields.insert("triad".to_owned(), json!(profile.triad().key()));
    for field in EditableField::ALL {
        fields.insert(
            field.name().to_owned(),
            json!(profile.prose.get(field).map(|p| p.as_str())),
        );
    }
    let skipped = request.dialogue.len().saturating_sub(DIALOGUE_WINDOW);
    let dialogue: Vec<Value> = request.dialogue[skipped..]
        .iter()
        .map(|m| json!({ "author": m.author.key(), "text": m.text }))
        .collect();
    let turn = match &request.turn {
        ReflectionTurn::Opener => json!({ "opener": true }),
        ReflectionTurn::Message(text) => json!({ "message": text.as_str() }),
    };
    let mut document = Map::new();
    document.insert("profile".to_owned(), Value::Object(fields));
    document.insert("coaching_style".to_owned(), json!(request.style.key()));
    document.insert("dialogue".to_owned(), Value::Array(dialogue));
    if skipped > 0 {
        document.insert("earlier_turns_not_shown".to_owned(), json!(skipped));
    }
    document.insert("turn".to_owned(), turn);
    messages(
        prompts::COACH,
        &Value::Object(document),
        request.feedback.as_deref(),
        "your reply",
    )
}

fn messages(system: &str, document: &Value, feedback: Option<&str>, what: &str) -> Vec<Value> {
    // Pretty-printed in reading order: easier for small models to read, and for a person
    // reading the preview.
    let content =
        serde_json::to_string_pretty(&Wire(document)).unwrap_or_else(|_| document.to_string());
    let mut messages = vec![
        json!({ "role": "system", "content": system }),
        json!({ "role": "user", "content": content }),
    ];
    if let Some(reason) = feedback {
        messages.push(json!({
            "role": "user",
            "content": format!(
                "Your previous answer to this could not be used: {reason}\n\
                 Answer again with {what} as exactly one JSON object of the shape the \
                 instructions give, and nothing before or after it."
            ),
        }));
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> ExtractionInput {
        ExtractionInput {
            love: "Woodwork.".into(),
            strength: "Patience.".into(),
            mission: "Kids who read.".into(),
            vocation: "Teacher.".into(),
            drives: "Understanding.".into(),
            near_term_goal: None,
            long_term_goal: Some("A school.".into()),
        }
    }

    fn reply() -> ReplySchema {
        schema::coach()
    }

    #[test]
    fn a_body_has_the_model_the_messages_the_budget_and_the_rung_s_response_format_only() {
        let messages = vec![json!({"role": "user", "content": "x"})];
        let body = chat(
            "m",
            messages.clone(),
            Some(2_048),
            Rung::JsonSchema,
            &reply(),
        );
        let keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["max_tokens", "messages", "model", "response_format"]);
        assert_eq!(body["model"], "m");
        assert_eq!(body["max_tokens"], 2_048);
        assert_eq!(body["messages"], Value::Array(messages));
        let plain = chat("m", Vec::new(), None, Rung::Text, &reply());
        assert!(plain.get("response_format").is_none());
        assert!(plain.get("max_tokens").is_none());
    }

    #[test]
    fn each_rung_asks_for_the_shape_as_its_servers_take_it() {
        let reply = reply();
        let format = |rung: Rung| rung.response_format(&reply);
        assert_eq!(
            format(Rung::JsonSchema),
            Some(json!({
                "type": "json_schema",
                "json_schema": {"name": "reflection_reply", "strict": true, "schema": reply.schema},
            }))
        );
        assert_eq!(
            format(Rung::JsonSchemaStrictSubset),
            Some(json!({
                "type": "json_schema",
                "json_schema": {
                    "name": "reflection_reply",
                    "strict": true,
                    "schema": schema::strict_subset(&reply.schema),
                },
            }))
        );
        assert_eq!(
            format(Rung::JsonObjectSchema),
            Some(json!({"type": "json_object", "schema": reply.schema}))
        );
        assert_eq!(
            format(Rung::JsonObject),
            Some(json!({"type": "json_object"}))
        );
        assert_eq!(format(Rung::Text), None);
    }

    #[test]
    fn the_ladder_goes_down_one_rung_at_a_time_and_ends_in_plain_text() {
        let mut seen = vec![Rung::ALL[0]];
        while let Some(next) = seen.last().and_then(|r| r.next()) {
            seen.push(next);
        }
        assert_eq!(seen, Rung::ALL);
        for rung in Rung::ALL {
            assert_eq!(Rung::from_index(rung.index()), rung);
        }
        assert_eq!(Rung::from_index(200), Rung::Text);
    }

    #[test]
    fn on_the_wire_keys_come_in_reading_order_and_the_json_is_unchanged() {
        let body = chat(
            "m",
            extraction_messages(&input(), None),
            Some(2_048),
            Rung::JsonSchema,
            &schema::extraction(&input()),
        );
        let wire = serde_json::to_string(&Wire(&body)).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&wire).unwrap(), body);
        let at = |needle: &str| wire.find(needle).unwrap();
        assert!(at("\"model\"") < at("\"messages\""));
        assert!(at("\"role\"") < at("\"content\""));
        let properties = &wire[at("\"enneagram_type\"")..];
        let order: Vec<usize> = [
            "enneagram_type",
            "love_summary",
            "strength_summary",
            "mission_summary",
            "vocation_summary",
            "overlap_narrative",
            "near_term_goal_summary",
            "long_term_goal_summary",
            "sources",
        ]
        .iter()
        .map(|k| properties.find(&format!("\"{k}\"")).unwrap())
        .collect();
        assert!(order.is_sorted(), "{order:?}");
        // And the document: each answer's step and prompt before its sentences.
        let document = body["messages"][1]["content"].as_str().unwrap();
        assert!(document.find("\"step\"").unwrap() < document.find("\"sentences\"").unwrap());
        assert!(document.find("\"prompt\"").unwrap() < document.find("\"sentences\"").unwrap());
    }

    #[test]
    fn the_extractor_sees_every_answer_with_its_prompt_and_no_sentences_for_no_goal() {
        let messages = extraction_messages(&input(), None);
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0]["role"], "system");
        assert_eq!(messages[0]["content"], prompts::EXTRACTOR);
        let document: Value =
            serde_json::from_str(messages[1]["content"].as_str().unwrap()).unwrap();
        let answers = document["answers"].as_array().unwrap();
        assert_eq!(answers.len(), 7);
        assert_eq!(answers[0]["sentences"], json!(["[1.1] Woodwork."]));
        assert_eq!(answers[4]["key"], "drives");
        assert_eq!(answers[5]["sentences"], json!([]), "no goal: no sentences");
        assert_eq!(answers[5]["horizon"], "6-12 months");
        assert_eq!(answers[6]["sentences"], json!(["[7.1] A school."]));
        assert!(
            answers[0].get("answer").is_none(),
            "the text goes as its sentences only"
        );
        assert!(answers[0].get("horizon").is_none());
    }

    #[test]
    fn the_retry_adds_one_message_with_the_reason() {
        let messages = extraction_messages(&input(), Some("triad \"head\" does not match type 8"));
        assert_eq!(messages.len(), 3);
        let last = messages[2]["content"].as_str().unwrap();
        assert!(last.contains("does not match type 8"), "{last}");
        assert_eq!(messages[2]["role"], "user");
    }
}
