//! The chat-completions request bodies, built from the port's input and nothing else: these
//! functions decide exactly which fields leave the server (docs/llm.md lists them). They are pure,
//! so the preview route shows the very body a request would carry.

use domain::discovery::{ExtractionInput, Step};
use domain::ports::CoachRequest;
use domain::profile::EditableField;
use domain::reflection::ReflectionTurn;
use serde_json::{Map, Value, json};

use super::prompts;

/// The most recent dialogue turns the coach sees; older ones are counted, not sent.
pub const DIALOGUE_WINDOW: usize = 20;

/// `{"model", "messages", "response_format"?}`: the only top-level fields ever sent.
#[must_use]
pub fn chat(model: &str, messages: Vec<Value>, json_mode: bool) -> Value {
    let mut body = Map::new();
    body.insert("model".to_owned(), Value::String(model.to_owned()));
    body.insert("messages".to_owned(), Value::Array(messages));
    if json_mode {
        body.insert(
            "response_format".to_owned(),
            json!({ "type": "json_object" }),
        );
    }
    Value::Object(body)
}

/// The extractor's messages: the system prompt, the answers as one JSON document, and on the one
/// retry what was wrong with the previous reply.
#[must_use]
pub fn extraction_messages(input: &ExtractionInput, feedback: Option<&str>) -> Vec<Value> {
    let answers: Vec<Value> = Step::all()
        .map(|step| {
            let prompt = step.prompt();
            let answer = match step.get() {
                1 => Some(input.love.as_str()),
                2 => Some(input.strength.as_str()),
                3 => Some(input.mission.as_str()),
                4 => Some(input.vocation.as_str()),
                5 => Some(input.drives.as_str()),
                6 => input.near_term_goal.as_deref(),
                _ => input.long_term_goal.as_deref(),
            };
            let mut entry = Map::new();
            entry.insert("step".to_owned(), json!(step.get()));
            entry.insert("key".to_owned(), json!(prompt.key.key()));
            entry.insert("title".to_owned(), json!(prompt.title));
            entry.insert("prompt".to_owned(), json!(prompt.text));
            if let Some(horizon) = prompt.horizon {
                entry.insert("horizon".to_owned(), json!(horizon));
            }
            entry.insert("answer".to_owned(), json!(answer));
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
    // Pretty-printed: easier for small models to read, and for a person reading the preview.
    let content = serde_json::to_string_pretty(document).unwrap_or_else(|_| document.to_string());
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

    #[test]
    fn a_body_has_the_model_the_messages_and_json_mode_only() {
        let body = chat("m", vec![json!({"role": "user", "content": "x"})], true);
        let keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["messages", "model", "response_format"]);
        assert_eq!(body["response_format"], json!({"type": "json_object"}));
        let plain = chat("m", Vec::new(), false);
        assert!(plain.get("response_format").is_none());
    }

    #[test]
    fn the_extractor_sees_every_answer_with_its_prompt_and_null_for_no_goal() {
        let messages = extraction_messages(&input(), None);
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0]["role"], "system");
        assert_eq!(messages[0]["content"], prompts::EXTRACTOR);
        let document: Value =
            serde_json::from_str(messages[1]["content"].as_str().unwrap()).unwrap();
        let answers = document["answers"].as_array().unwrap();
        assert_eq!(answers.len(), 7);
        assert_eq!(answers[0]["answer"], "Woodwork.");
        assert_eq!(answers[4]["key"], "drives");
        assert_eq!(answers[5]["answer"], Value::Null);
        assert_eq!(answers[5]["horizon"], "6-12 months");
        assert_eq!(answers[6]["answer"], "A school.");
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
