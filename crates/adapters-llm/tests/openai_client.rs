//! The OpenAI-compatible client against a fake endpoint (wiremock): what it sends (the model, the
//! messages, the reply's JSON Schema, the key as a Bearer token and no field docs/llm.md does not
//! list), what it makes of replies, timeouts, rate limits, the structured-output ladder down which
//! it goes as servers refuse a `response_format`, and the domain's one retry through the real
//! services.

// A panic is the failure report here, helpers included (clippy.toml covers only #[test] bodies).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use adapters_llm::openai::schema::{self, ReplySchema};
use adapters_llm::openai::{Rung, prompts};
use adapters_llm::{LanguageModel, OfflineEngine, OpenAiClient, OpenAiConfig};
use domain::clock::FixedClock;
use domain::coaching::CoachingStyle;
use domain::discovery::{Conversation, Extraction, ExtractionInput, Step};
use domain::ids::UserId;
use domain::ports::{
    Coach, CoachRequest, Extractor, MockConversationRepository, MockPreferencesRepository,
    MockProfileRepository, MockReflectionRepository, ModelError,
};
use domain::profile::{EnneagramType, Profile, ProseFields};
use domain::reflection::{Author, ReflectionMessage, ReflectionTurn};
use domain::services::discovery::CompleteError;
use domain::services::profile::ReflectError;
use domain::services::{DiscoveryService, ModelFailure, ProfileService};
use domain::text::{AnswerText, MessageText, Prose};
use secrecy::SecretString;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const NOW: OffsetDateTime = datetime!(2026-11-22 10:00 UTC);
const MODEL: &str = "test-model";
const KEY: &str = "sk-test-0123456789-secret";

// ---------------------------------------------------------------------------------------------
// Fixtures

fn client_with(server: &MockServer, timeout: Duration, key: Option<&str>) -> OpenAiClient {
    let config = OpenAiConfig::new(
        &format!("{}/v1", server.uri()),
        MODEL,
        key.map(SecretString::from),
        timeout,
    )
    .unwrap();
    OpenAiClient::new(config).unwrap()
}

fn client(server: &MockServer) -> OpenAiClient {
    client_with(server, Duration::from_secs(5), None)
}

/// A chat completion whose first choice says `content`.
fn completion(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_763_800_000,
        "model": MODEL,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    }))
}

fn chat_route() -> wiremock::MockBuilder {
    Mock::given(method("POST")).and(path("/v1/chat/completions"))
}

fn input() -> ExtractionInput {
    ExtractionInput {
        love: "Restoring old radios in my shed.".into(),
        strength: "People bring me things nobody else can fix.".into(),
        mission: "Less electronic waste.".into(),
        vocation: "I run a small repair shop.".into(),
        drives: "I want to understand how things work. Under pressure I withdraw.".into(),
        near_term_goal: Some("Teach a repair class by June.".into()),
        long_term_goal: None,
    }
}

/// The extractor's reply (v2 shape), with a goal for the long-term answer the person left empty.
fn extraction_reply() -> String {
    json!({
        "enneagram_type": 5,
        "love_summary": "You love restoring old radios in your shed.",
        "strength_summary": "People bring you what nobody else can fix.",
        "mission_summary": "You want less electronic waste.",
        "vocation_summary": "You run a small repair shop.",
        "overlap_narrative": "Repair ties it together.",
        "near_term_goal_summary": "Teach a repair class by June.",
        "long_term_goal_summary": "Open a repair school.",
        "sources": {
            "love_summary": [{"step": 1, "quote": "Restoring old radios"}],
            "strength_summary": [],
            "mission_summary": [],
            "vocation_summary": [],
            "overlap_narrative": [],
            "near_term_goal_summary": [{"step": 6, "quote": "Teach a repair class by June"}],
            "long_term_goal_summary": [{"step": 7, "quote": "Open a repair school"}]
        }
    })
    .to_string()
}

fn profile(user: UserId) -> Profile {
    let prose = |s: &str| Prose::new(s).unwrap();
    Profile::extracted(
        user,
        Extraction {
            enneagram_type: EnneagramType::new(5).unwrap(),
            prose: ProseFields {
                love_summary: prose("You love restoring radios."),
                strength_summary: prose("Fixing what others cannot."),
                mission_summary: prose("Less electronic waste."),
                vocation_summary: prose("A repair shop."),
                overlap_narrative: prose("Repair ties it together."),
                near_term_goal_summary: None,
                long_term_goal_summary: Some(prose("Open a repair school.")),
            },
            sources: Default::default(),
        },
        NOW,
    )
    .profile
}

fn coach_request(profile: &Profile, turn: ReflectionTurn) -> CoachRequest {
    CoachRequest {
        profile: profile.clone(),
        dialogue: vec![
            ReflectionMessage::new(profile.user_id, Author::Coach, "Hello.".into(), NOW),
            ReflectionMessage::new(profile.user_id, Author::Person, "Hi there.".into(), NOW),
        ],
        style: CoachingStyle::Warm,
        turn,
        feedback: None,
    }
}

fn say(text: &str) -> ReflectionTurn {
    ReflectionTurn::Message(MessageText::new(text).unwrap())
}

fn body_of(request: &Request) -> Value {
    serde_json::from_slice(&request.body).unwrap()
}

/// The JSON document of the first user message.
fn document_of(body: &Value) -> Value {
    serde_json::from_str(body["messages"][1]["content"].as_str().unwrap()).unwrap()
}

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

fn set<'a>(items: &[&'a str]) -> BTreeSet<&'a str> {
    items.iter().copied().collect()
}

// The fields docs/llm.md ("What leaves the server") lists, and no others.
const BODY_FIELDS: &[&str] = &["model", "messages", "max_tokens", "response_format"];
const MESSAGE_FIELDS: &[&str] = &["role", "content"];
const EXTRACTION_ANSWER_FIELDS: &[&str] =
    &["step", "key", "title", "prompt", "horizon", "sentences"];
const COACH_DOCUMENT_FIELDS: &[&str] = &[
    "profile",
    "coaching_style",
    "dialogue",
    "earlier_turns_not_shown",
    "turn",
];
const COACH_PROFILE_FIELDS: &[&str] = &[
    "enneagram_type",
    "triad",
    "love_summary",
    "strength_summary",
    "mission_summary",
    "vocation_summary",
    "overlap_narrative",
    "near_term_goal_summary",
    "long_term_goal_summary",
];
const DIALOGUE_FIELDS: &[&str] = &["author", "text"];

// ---------------------------------------------------------------------------------------------
// Happy paths and what is sent

#[tokio::test]
async fn an_extraction_sends_the_model_the_messages_and_the_schema_and_returns_the_reply() {
    let server = MockServer::start().await;
    chat_route()
        .and(header("content-type", "application/json"))
        .respond_with(completion(&extraction_reply()))
        .expect(1)
        .mount(&server)
        .await;
    let reply = client(&server).extract(&input(), None).await.unwrap();
    assert_eq!(reply, extraction_reply());

    let requests = server.received_requests().await.unwrap();
    let body = body_of(&requests[0]);
    assert_eq!(keys(&body), set(BODY_FIELDS));
    assert_eq!(body["model"], MODEL);
    assert_eq!(body["max_tokens"], adapters_llm::DEFAULT_MAX_TOKENS);
    let sent_schema = schema::extraction(&input()).schema;
    assert_eq!(
        body["response_format"],
        json!({
            "type": "json_schema",
            "json_schema": {"name": "discovery_profile", "strict": true, "schema": sent_schema}
        })
    );
    assert_eq!(
        sent_schema["properties"]["long_term_goal_summary"],
        json!({"type": "null"}),
        "no long-term goal stated, none can be written"
    );
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    for m in messages {
        assert_eq!(keys(m), set(MESSAGE_FIELDS));
    }
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[0]["content"], prompts::EXTRACTOR);
    assert_eq!(messages[1]["role"], "user");
    let document = document_of(&body);
    assert_eq!(keys(&document), set(&["answers"]));
    let answers = document["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 7);
    for a in answers {
        assert!(keys(a).is_subset(&set(EXTRACTION_ANSWER_FIELDS)), "{a}");
    }
    // Each answer goes as its numbered sentences, which the reply's sources name.
    let drives: Vec<String> = answers[4]["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().split_once("] ").unwrap().1.to_owned())
        .collect();
    assert_eq!(drives.join(" "), input().drives);
    assert!(
        answers[4]["sentences"][0]
            .as_str()
            .unwrap()
            .starts_with("[5.1] ")
    );
    assert_eq!(answers[6]["sentences"], json!([]), "no goal stated");
    assert!(
        requests[0].headers.get("authorization").is_none(),
        "no key, no Authorization header"
    );
}

/// `LLM_MAX_TOKENS=0`: the field is left out, for endpoints that refuse it.
#[tokio::test]
async fn a_budget_of_zero_sends_no_max_tokens() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(completion(&extraction_reply()))
        .expect(1)
        .mount(&server)
        .await;
    let config = OpenAiConfig::new(
        &format!("{}/v1", server.uri()),
        MODEL,
        None,
        Duration::from_secs(5),
    )
    .and_then(|c| c.with_max_tokens(0))
    .unwrap();
    let client = OpenAiClient::new(config).unwrap();
    client.extract(&input(), None).await.unwrap();

    let body = body_of(&server.received_requests().await.unwrap()[0]);
    assert!(body.get("max_tokens").is_none(), "{body}");
    assert!(body.get("response_format").is_some());
}

#[tokio::test]
async fn a_reflection_sends_the_profile_style_dialogue_and_turn_and_nothing_else() {
    let server = MockServer::start().await;
    let reply =
        r#"{"message": "What draws you to radios?", "revisions": [], "revision_note": null}"#;
    chat_route()
        .respond_with(completion(reply))
        .expect(1)
        .mount(&server)
        .await;
    let user = UserId::new();
    let profile = profile(user);
    let request = coach_request(&profile, say("I also fix clocks."));
    let client = client(&server);
    assert_eq!(client.reply(&request).await.unwrap(), reply);

    let sent = body_of(&server.received_requests().await.unwrap()[0]);
    assert_eq!(keys(&sent), set(BODY_FIELDS));
    assert_eq!(
        sent["response_format"],
        json!({
            "type": "json_schema",
            "json_schema": {"name": "reflection_reply", "strict": true, "schema": schema::coach().schema}
        })
    );
    assert_eq!(sent["messages"][0]["content"], prompts::COACH);
    let document = document_of(&sent);
    assert!(
        keys(&document).is_subset(&set(COACH_DOCUMENT_FIELDS)),
        "{document}"
    );
    assert_eq!(keys(&document["profile"]), set(COACH_PROFILE_FIELDS));
    assert_eq!(document["profile"]["enneagram_type"], 5);
    assert_eq!(document["profile"]["triad"], "head");
    assert_eq!(document["profile"]["near_term_goal_summary"], Value::Null);
    assert_eq!(document["coaching_style"], "warm");
    assert_eq!(document["turn"], json!({"message": "I also fix clocks."}));
    let dialogue = document["dialogue"].as_array().unwrap();
    assert_eq!(dialogue.len(), 2);
    for turn in dialogue {
        assert_eq!(keys(turn), set(DIALOGUE_FIELDS));
    }
    assert_eq!(
        dialogue[1],
        json!({"author": "person", "text": "Hi there."})
    );

    // Nothing that identifies the person or the records travels: no ids, no timestamps.
    let text = sent.to_string();
    for secret in [
        user.to_string(),
        profile.id.to_string(),
        request.dialogue[0].id.to_string(),
        "2026-11-22".to_owned(),
    ] {
        assert!(!text.contains(&secret), "{secret} was sent");
    }

    // The preview is the very body that was sent.
    assert_eq!(client.reflection_body(&request), sent);
    let preview = LanguageModel::OpenAi(client.clone()).reflection_preview(&request);
    assert_eq!(preview.provider, "openai");
    assert_eq!(preview.request, Some(sent));
    assert_eq!(
        preview.endpoint.as_deref(),
        Some(format!("{}/v1/chat/completions", server.uri()).as_str())
    );
}

#[tokio::test]
async fn an_opener_is_sent_as_an_opener_and_only_recent_dialogue_travels() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(completion(r#"{"message": "Here is what I heard."}"#))
        .mount(&server)
        .await;
    let profile = profile(UserId::new());
    let mut request = coach_request(&profile, ReflectionTurn::Opener);
    request.dialogue = (0..25)
        .map(|i| ReflectionMessage::new(profile.user_id, Author::Person, format!("turn {i}"), NOW))
        .collect();
    client(&server).reply(&request).await.unwrap();
    let document = document_of(&body_of(&server.received_requests().await.unwrap()[0]));
    assert_eq!(document["turn"], json!({"opener": true}));
    assert_eq!(document["earlier_turns_not_shown"], 5);
    let dialogue = document["dialogue"].as_array().unwrap();
    assert_eq!(dialogue.len(), 20);
    assert_eq!(dialogue[0]["text"], "turn 5");
    assert_eq!(dialogue[19]["text"], "turn 24");
}

#[tokio::test]
async fn the_api_key_is_sent_as_a_bearer_token_and_never_shown_in_debug_output() {
    let server = MockServer::start().await;
    chat_route()
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(completion("{}"))
        .expect(1)
        .mount(&server)
        .await;
    let client = client_with(&server, Duration::from_secs(5), Some(KEY));
    client.extract(&input(), None).await.unwrap();
    // docs/llm.md lists the headers too: these and no others.
    let request = &server.received_requests().await.unwrap()[0];
    let names: BTreeSet<&str> = request.headers.keys().map(|n| n.as_str()).collect();
    assert_eq!(
        names,
        set(&[
            "accept",
            "authorization",
            "content-length",
            "content-type",
            "host",
            "user-agent"
        ])
    );
    let agent = request.headers.get("user-agent").unwrap().to_str().unwrap();
    assert!(agent.starts_with("discovery-service/"), "{agent}");
    let debug = format!(
        "{client:?} {:?} {:?}",
        client.config(),
        LanguageModel::OpenAi(client.clone())
    );
    assert!(!debug.contains("secret"), "{debug}");
    assert!(debug.contains("REDACTED"), "{debug}");
    // The person's words are not in it either.
    assert!(!debug.contains("radios"));
}

#[tokio::test]
async fn reasoning_before_the_json_is_left_out_of_the_reply() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(completion(&format!(
            "<think>{{maybe type 6?}}</think>{}",
            extraction_reply()
        )))
        .mount(&server)
        .await;
    let reply = client(&server).extract(&input(), None).await.unwrap();
    assert_eq!(reply, extraction_reply());
}

// ---------------------------------------------------------------------------------------------
// The one retry, through the real services

fn conversation(user: UserId) -> Conversation {
    let mut c = Conversation::start(user, NOW);
    let input = input();
    for (n, text) in [
        (1, input.love.as_str()),
        (2, &input.strength),
        (3, &input.mission),
        (4, &input.vocation),
        (5, &input.drives),
        (6, "Teach a repair class by June."),
        (7, ""),
    ] {
        c.answer(Step::new(n).unwrap(), AnswerText::new(text).unwrap(), NOW)
            .unwrap();
    }
    c
}

type Discovery =
    DiscoveryService<MockConversationRepository, MockProfileRepository, OpenAiClient, FixedClock>;

fn discovery(client: OpenAiClient, user: UserId, writes: usize) -> Discovery {
    let conversation = conversation(user);
    let mut conversations = MockConversationRepository::new();
    conversations
        .expect_latest()
        .returning(move |_| Ok(Some(conversation.clone())));
    let mut profiles = MockProfileRepository::new();
    profiles.expect_get().returning(|_| Ok(None));
    profiles
        .expect_write()
        .times(writes)
        .returning(|_| Ok(None));
    DiscoveryService::new(conversations, profiles, client, FixedClock::at(NOW))
}

#[tokio::test]
async fn an_unusable_extraction_is_retried_once_with_the_reason_and_then_used() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(completion("Sure! Here is the profile you asked for."))
        .up_to_n_times(1)
        .expect(1)
        .mount(&server)
        .await;
    chat_route()
        .respond_with(completion(&extraction_reply()))
        .expect(1)
        .mount(&server)
        .await;
    let user = UserId::new();
    let profile = discovery(client(&server), user, 1)
        .complete(user)
        .await
        .unwrap();
    assert_eq!(profile.enneagram_type.get(), 5);
    assert_eq!(
        profile.prose.near_term_goal_summary.unwrap().as_str(),
        "Teach a repair class by June."
    );
    assert_eq!(
        profile.prose.long_term_goal_summary, None,
        "the model's goal for an empty answer is dropped"
    );

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2, "exactly one retry");
    let retry = body_of(&requests[1]);
    let messages = retry["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    let feedback = messages[2]["content"].as_str().unwrap();
    assert!(feedback.contains("no JSON object found"), "{feedback}");
    assert_eq!(retry["messages"][1], body_of(&requests[0])["messages"][1]);
}

#[tokio::test]
async fn a_triad_that_does_not_match_the_type_is_retried_and_then_refused() {
    let server = MockServer::start().await;
    let mut wrong: Value = serde_json::from_str(&extraction_reply()).unwrap();
    wrong["triad"] = json!("gut");
    chat_route()
        .respond_with(completion(&wrong.to_string()))
        .expect(2)
        .mount(&server)
        .await;
    let user = UserId::new();
    let err = discovery(client(&server), user, 0)
        .complete(user)
        .await
        .unwrap_err();
    assert!(
        matches!(err, CompleteError::ExtractorUnavailable(ModelFailure::Unusable(ref why)) if why.contains("does not match type 5")),
        "{err:?}"
    );
    let requests = server.received_requests().await.unwrap();
    let feedback = body_of(&requests[1])["messages"][2]["content"].clone();
    assert!(
        feedback.as_str().unwrap().contains("whose triad is head"),
        "{feedback}"
    );
}

#[tokio::test]
async fn two_unusable_coach_replies_fail_and_nothing_is_written() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(completion("{\"reply\": \"hello\"}"))
        .expect(2)
        .mount(&server)
        .await;
    let user = UserId::new();
    let stored = profile(user);
    let mut profiles = MockProfileRepository::new();
    profiles
        .expect_get()
        .returning(move |_| Ok(Some(stored.clone())));
    profiles.expect_write().never();
    let mut reflection = MockReflectionRepository::new();
    reflection.expect_list().returning(|_| Ok(Vec::new()));
    reflection.expect_append().never();
    let mut preferences = MockPreferencesRepository::new();
    preferences.expect_get().returning(|_| Ok(None));
    let service = ProfileService::new(
        profiles,
        reflection,
        client(&server),
        preferences,
        FixedClock::at(NOW),
    );
    let err = service.reflect(user, say("Hello")).await.unwrap_err();
    assert!(
        matches!(
            err,
            ReflectError::CoachUnavailable(ModelFailure::Unusable(_))
        ),
        "{err:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Failures of the endpoint

#[tokio::test]
async fn a_slow_endpoint_times_out_within_the_timeout_and_a_second() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(completion("{}").set_delay(Duration::from_secs(10)))
        .mount(&server)
        .await;
    let started = Instant::now();
    let err = client_with(&server, Duration::from_secs(1), None)
        .extract(&input(), None)
        .await
        .unwrap_err();
    let elapsed = started.elapsed();
    assert!(matches!(err, ModelError::Timeout), "{err:?}");
    assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
    assert!(elapsed >= Duration::from_millis(900), "took {elapsed:?}");
}

#[tokio::test]
async fn a_rate_limit_with_retry_after_is_waited_out_within_the_timeout() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "1"))
        .up_to_n_times(1)
        .expect(1)
        .mount(&server)
        .await;
    chat_route()
        .respond_with(completion(&extraction_reply()))
        .expect(1)
        .mount(&server)
        .await;
    let started = Instant::now();
    let reply = client_with(&server, Duration::from_secs(5), None)
        .extract(&input(), None)
        .await
        .unwrap();
    assert_eq!(reply, extraction_reply());
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited as asked"
    );
}

#[tokio::test]
async fn a_retry_after_beyond_the_timeout_is_not_waited_for() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "60"))
        .expect(1)
        .mount(&server)
        .await;
    let started = Instant::now();
    let err = client_with(&server, Duration::from_secs(3), None)
        .extract(&input(), None)
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::RateLimited), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "gave up at once"
    );
}

#[tokio::test]
async fn a_rate_limit_without_retry_after_is_reported_at_once() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(ResponseTemplate::new(429))
        .expect(1)
        .mount(&server)
        .await;
    let err = client(&server).extract(&input(), None).await.unwrap_err();
    assert!(matches!(err, ModelError::RateLimited), "{err:?}");
}

#[tokio::test]
async fn server_errors_refusals_and_garbage_are_unavailable_without_the_body() {
    for (response, hint) in [
        (
            ResponseTemplate::new(503).set_body_string("overloaded: radios"),
            "503",
        ),
        (
            ResponseTemplate::new(401).set_body_string("bad key radios"),
            "LLM_API_KEY",
        ),
        (ResponseTemplate::new(404), "LLM_MODEL"),
        (
            ResponseTemplate::new(400).set_body_string("context too long: radios"),
            "400",
        ),
        (
            ResponseTemplate::new(200).set_body_string("<html>radios</html>"),
            "not a chat completion",
        ),
    ] {
        let server = MockServer::start().await;
        chat_route()
            .respond_with(response)
            .expect(1)
            .mount(&server)
            .await;
        let err = client(&server).extract(&input(), None).await.unwrap_err();
        let ModelError::Unavailable(why) = err else {
            panic!("{hint}: {err:?}");
        };
        assert!(why.contains(hint), "{why}");
        assert!(!why.contains("radios"), "the body is never repeated: {why}");
    }
}

#[tokio::test]
async fn a_closed_port_is_unavailable() {
    // Not a dropped MockServer: wiremock pools its servers, so a dropped one keeps listening
    // and may already answer another test.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = OpenAiConfig::new(
        &format!("http://127.0.0.1:{port}/v1"),
        MODEL,
        None,
        Duration::from_secs(5),
    )
    .unwrap();
    let client = OpenAiClient::new(config).unwrap();
    let err = client.extract(&input(), None).await.unwrap_err();
    assert!(matches!(err, ModelError::Unavailable(_)), "{err:?}");
}

// ---------------------------------------------------------------------------------------------
// Structured outputs: the ladder of response_formats

/// Matches a request whose `response_format` (absent: `None`) makes `refuses` true.
struct Refuses(fn(Option<&Value>) -> bool);

impl wiremock::Match for Refuses {
    fn matches(&self, request: &Request) -> bool {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        (self.0)(body.get("response_format"))
    }
}

/// An endpoint that answers `status` with `error` to the requests `refuses` picks, and the
/// extraction reply to any other.
async fn endpoint(refuses: fn(Option<&Value>) -> bool, status: u16, error: Value) -> MockServer {
    let server = MockServer::start().await;
    chat_route()
        .and(Refuses(refuses))
        .respond_with(ResponseTemplate::new(status).set_body_json(error))
        .with_priority(1)
        .mount(&server)
        .await;
    chat_route()
        .respond_with(completion(&extraction_reply()))
        .mount(&server)
        .await;
    server
}

fn format_type(format: Option<&Value>) -> Option<&str> {
    format.and_then(|f| f["type"].as_str())
}

/// The `response_format` of rung `n` (1-5, as docs/llm.md numbers them), written out by hand.
fn expected_format(n: u8, reply: &ReplySchema) -> Option<Value> {
    let without_limits = schema::strict_subset(&reply.schema);
    match n {
        1 => Some(json!({
            "type": "json_schema",
            "json_schema": {"name": reply.name, "strict": true, "schema": reply.schema},
        })),
        2 => Some(json!({
            "type": "json_schema",
            "json_schema": {"name": reply.name, "strict": true, "schema": without_limits},
        })),
        3 => Some(json!({"type": "json_object", "schema": reply.schema})),
        4 => Some(json!({"type": "json_object"})),
        _ => None,
    }
}

/// The `response_format` of each request the server received, in order.
async fn formats_sent(server: &MockServer) -> Vec<Option<Value>> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| body_of(r).get("response_format").cloned())
        .collect()
}

#[tokio::test]
async fn an_endpoint_that_enforces_json_schema_is_asked_with_it_every_time() {
    // LM Studio refuses json_object, so JSON mode alone would have ended in plain text.
    let server = endpoint(
        |f| format_type(f) == Some("json_object"),
        400,
        json!({"error": "'response_format.type' must be 'json_schema' or 'text'"}),
    )
    .await;
    let client = client(&server);
    assert_eq!(client.rung(), Rung::JsonSchema);
    client.extract(&input(), None).await.unwrap();
    client.extract(&input(), None).await.unwrap();
    let extraction = schema::extraction(&input());
    assert_eq!(
        formats_sent(&server).await,
        [
            expected_format(1, &extraction),
            expected_format(1, &extraction)
        ]
    );
    assert_eq!(client.rung(), Rung::JsonSchema);
}

#[tokio::test]
async fn llama_cpp_python_refuses_json_schema_and_is_asked_with_a_json_object_schema_from_then_on()
{
    // llama-cpp-python 0.3.36's server validates `response_format.type` against its two types
    // and answers a 500 (as recorded in tests/llm-real/recorded/response_format.txt).
    let server = endpoint(
        |f| format_type(f) == Some("json_schema"),
        500,
        json!({"error": {
            "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File \"/venv/llama_cpp/server/app.py\", line 376, in create_chat_completion\n    POST /v1/chat/completions",
            "type": "internal_server_error",
            "param": null,
            "code": null
        }}),
    )
    .await;
    let client = client(&server);
    let reply = client.extract(&input(), None).await.unwrap();
    assert_eq!(reply, extraction_reply());
    assert_eq!(client.rung(), Rung::JsonObjectSchema);
    let extraction = schema::extraction(&input());
    assert_eq!(
        formats_sent(&server).await,
        [
            expected_format(1, &extraction),
            expected_format(2, &extraction),
            expected_format(3, &extraction),
        ],
        "one rung down per refusal, within the one call"
    );

    // Remembered by every clone: the next call goes straight to the rung that worked.
    let coach = coach_request(&profile(UserId::new()), say("I also fix clocks."));
    client.clone().reply(&coach).await.unwrap();
    let sent = server.received_requests().await.unwrap();
    assert_eq!(sent.len(), 4);
    let last = body_of(&sent[3]);
    assert_eq!(
        last.get("response_format").cloned(),
        expected_format(3, &schema::coach())
    );

    // The previews show the body as it would be sent now.
    assert_eq!(client.reflection_body(&coach), last);
    assert_eq!(
        client.extraction_body(&input(), None),
        body_of(&sent[2]),
        "the extraction body at this rung is the one that was answered"
    );
    let preview = LanguageModel::OpenAi(client.clone()).reflection_preview(&coach);
    assert_eq!(preview.request, Some(last));
}

#[tokio::test]
async fn openai_refusing_length_limits_is_asked_with_its_strict_subset() {
    let server = endpoint(
        |f| f.is_some_and(|f| f.to_string().contains("maxLength")),
        400,
        json!({"error": {
            "message": "Invalid schema for response_format 'discovery_profile': In context=('properties', 'quote'), 'maxLength' is not permitted.",
            "type": "invalid_request_error",
            "param": "response_format",
            "code": null
        }}),
    )
    .await;
    let client = client(&server);
    // The profile's sources are sentence numbers: its schema has no length limit to refuse.
    client.extract(&input(), None).await.unwrap();
    // The coach's quotes have one.
    let coach = coach_request(&profile(UserId::new()), say("I also fix clocks."));
    client.reply(&coach).await.unwrap();
    client.reply(&coach).await.unwrap();
    let extraction = schema::extraction(&input());
    let reply = schema::coach();
    let sent = formats_sent(&server).await;
    assert_eq!(
        sent,
        [
            expected_format(1, &extraction),
            expected_format(1, &reply),
            expected_format(2, &reply),
            expected_format(2, &reply),
        ]
    );
    assert!(!sent[2].as_ref().unwrap().to_string().contains("maxLength"));
    assert_eq!(client.rung(), Rung::JsonSchemaStrictSubset);
}

#[tokio::test]
async fn an_endpoint_with_json_mode_only_settles_on_json_object() {
    let server = endpoint(
        |f| f.is_some_and(|f| f.get("json_schema").is_some() || f.get("schema").is_some()),
        400,
        json!({"error": {"message": "unknown field `schema` in `response_format`"}}),
    )
    .await;
    let client = client(&server);
    client.extract(&input(), None).await.unwrap();
    client.extract(&input(), None).await.unwrap();
    let extraction = schema::extraction(&input());
    assert_eq!(
        formats_sent(&server).await,
        [
            expected_format(1, &extraction),
            expected_format(2, &extraction),
            expected_format(3, &extraction),
            expected_format(4, &extraction),
            expected_format(4, &extraction),
        ]
    );
    assert_eq!(client.rung(), Rung::JsonObject);
}

#[tokio::test]
async fn an_endpoint_without_response_format_settles_on_plain_text() {
    let server = endpoint(
        |f| f.is_some(),
        400,
        json!({"error": {"message": "response_format is not supported"}}),
    )
    .await;
    let client = client(&server);
    let reply = client.extract(&input(), None).await.unwrap();
    assert!(reply.contains("\"enneagram_type\":5"), "{reply}");
    client.extract(&input(), None).await.unwrap();
    let sent = formats_sent(&server).await;
    assert_eq!(sent.len(), 6, "four refusals, then plain text twice");
    assert_eq!(sent[3], expected_format(4, &schema::extraction(&input())));
    assert_eq!(sent[4], None);
    assert_eq!(sent[5], None);
    assert_eq!(client.rung(), Rung::Text);
    let preview = client.reflection_body(&coach_request(
        &profile(UserId::new()),
        ReflectionTurn::Opener,
    ));
    assert!(
        preview.get("response_format").is_none(),
        "the preview follows"
    );
}

#[tokio::test]
async fn a_refusal_in_plain_text_is_an_error_and_not_a_loop() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(ResponseTemplate::new(400).set_body_string("bad format: radios"))
        .expect(5)
        .mount(&server)
        .await;
    let client = client(&server);
    let err = client.extract(&input(), None).await.unwrap_err();
    let ModelError::Unavailable(why) = err else {
        panic!("{err:?}");
    };
    assert!(why.contains("400"), "{why}");
    assert!(!why.contains("radios"));
    assert_eq!(client.rung(), Rung::Text);
}

#[tokio::test]
async fn server_errors_and_timeouts_never_move_down_the_ladder() {
    for response in [
        ResponseTemplate::new(500).set_body_string("response_format: json_schema failed"),
        ResponseTemplate::new(503).set_body_string("schema compiler overloaded"),
        completion("{}").set_delay(Duration::from_secs(3)),
    ] {
        let server = MockServer::start().await;
        chat_route()
            .respond_with(response)
            .expect(1)
            .mount(&server)
            .await;
        let client = client_with(&server, Duration::from_secs(1), None);
        client.extract(&input(), None).await.unwrap_err();
        assert_eq!(client.rung(), Rung::JsonSchema);
        assert_eq!(
            formats_sent(&server).await,
            [expected_format(1, &schema::extraction(&input()))]
        );
    }
}

#[tokio::test]
async fn a_bad_request_about_something_else_does_not_move_down_the_ladder() {
    let server = MockServer::start().await;
    chat_route()
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({
            "error": {"message": "This model's maximum context length is 2048 tokens.", "param": "messages"}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let client = client(&server);
    client.extract(&input(), None).await.unwrap_err();
    assert_eq!(client.rung(), Rung::JsonSchema);
}

#[tokio::test]
async fn the_offline_engine_previews_that_nothing_leaves_the_server() {
    let preview = LanguageModel::Offline(OfflineEngine)
        .reflection_preview(&coach_request(&profile(UserId::new()), say("Hello")));
    assert_eq!(preview.provider, "offline");
    assert_eq!(preview.request, None);
    assert_eq!(preview.endpoint, None);
    let reply = LanguageModel::default()
        .reply(&coach_request(
            &profile(UserId::new()),
            ReflectionTurn::Opener,
        ))
        .await
        .unwrap();
    assert!(reply.contains("\"message\""));
}
