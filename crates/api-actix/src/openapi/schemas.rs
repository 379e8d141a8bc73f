//! The contract's JSON shapes as OpenAPI schemas: every request body with exactly the limits the
//! server enforces, and every response. The handlers build their JSON in `views`; these types
//! only describe it (schemathesis checks in CI that every answer conforms, and that everything
//! these schemas allow is accepted).

#![allow(dead_code)] // Fields are read by the derive only.

use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

// The patterns every text field carries: schema attributes take only literals, so each is
// spelled out where used; a test holds every pattern in the document to this list.

/// Text as `domain::text::Text` takes it: no C0 control character but tab, line feed and
/// carriage return (NUL included: PostgreSQL cannot store it).
pub const TEXT: &str = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$";
/// As [`TEXT`], and not blank: at least one character that is not white space.
pub const NON_BLANK: &str = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\s][^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$";
/// `If-Match`: the profile's version, quoted, weak or bare, or `*`.
pub const IF_MATCH: &str = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#;
/// An e-mail address as dev login takes it (`domain::account::Email`, not trimmed here).
pub const EMAIL: &str = "^[^\\s@\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]+@[^\\s@\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]+$";
/// A page cursor as this service makes them, `<unix microseconds>_<uuid>`; empty means none.
pub const CURSOR: &str = "^$|^-?[0-9]{1,17}_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

// ---------------------------------------------------------------------------------------------
// Errors and operations

/// Every error: `{"error": {"code", "message", "details"?}}`.
#[derive(Debug, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, ToSchema)]
pub struct ErrorDetail {
    /// One of the contract's codes, e.g. `validation_failed`.
    #[schema(example = "validation_failed")]
    pub code: String,
    /// A sentence for people; never a stack trace, SQL text or secret.
    pub message: String,
    /// For validation failures: each offending field.
    pub details: Option<Vec<FieldErrorBody>>,
}

#[derive(Debug, ToSchema)]
pub struct FieldErrorBody {
    /// The field's path, e.g. `items[3].minutes`.
    pub field: String,
    pub message: String,
}

#[derive(Debug, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    pub status: String,
}

// ---------------------------------------------------------------------------------------------
// Discovery

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PromptKey {
    Love,
    Strength,
    Mission,
    Vocation,
    Drives,
    NearTermGoal,
    LongTermGoal,
}

#[derive(Debug, ToSchema)]
pub struct Prompt {
    #[schema(minimum = 1, maximum = 7)]
    pub step: u8,
    pub key: PromptKey,
    pub title: String,
    pub text: String,
    /// `"6-12 months"` (step 6), `"3-5 years"` (step 7), else null.
    pub horizon: Option<String>,
}

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConversationStatus {
    InProgress,
    Completed,
}

#[derive(Debug, ToSchema)]
pub struct Answer {
    #[schema(minimum = 1, maximum = 7)]
    pub step: u8,
    pub key: PromptKey,
    pub text: String,
    pub answered_at: OffsetDateTime,
}

#[derive(Debug, ToSchema)]
pub struct Conversation {
    pub id: Uuid,
    pub status: ConversationStatus,
    pub answers: Vec<Answer>,
    #[schema(minimum = 1, maximum = 7)]
    pub next_step: Option<u8>,
    pub near_term_goal_raw: Option<String>,
    pub long_term_goal_raw: Option<String>,
    pub created_at: OffsetDateTime,
    pub completed_at: Option<OffsetDateTime>,
}

/// An answer. Steps 1-5 need text that is not blank (422 otherwise); steps 6-7 take `""` for
/// "I have no such goal".
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    #[schema(
        max_length = 10000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$"
    )]
    pub text: String,
}

// ---------------------------------------------------------------------------------------------
// Profile and reflection

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Triad {
    Gut,
    Heart,
    Head,
}

#[derive(Debug, ToSchema)]
pub struct Profile {
    pub id: Uuid,
    #[schema(minimum = 1, maximum = 9)]
    pub enneagram_type: u8,
    pub triad: Triad,
    pub love_summary: String,
    pub strength_summary: String,
    pub mission_summary: String,
    pub vocation_summary: String,
    pub overlap_narrative: String,
    pub near_term_goal_summary: Option<String>,
    pub long_term_goal_summary: Option<String>,
    pub locked: bool,
    pub affirmed_at: Option<OffsetDateTime>,
    #[schema(minimum = 1)]
    pub version: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// Any subset of the seven editable fields; any other field is 422. The two goal summaries may
/// be null (no such goal); the others may not.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileEditRequest {
    #[schema(
        max_length = 4000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$",
        nullable = false
    )]
    pub love_summary: Option<String>,
    #[schema(
        max_length = 4000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$",
        nullable = false
    )]
    pub strength_summary: Option<String>,
    #[schema(
        max_length = 4000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$",
        nullable = false
    )]
    pub mission_summary: Option<String>,
    #[schema(
        max_length = 4000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$",
        nullable = false
    )]
    pub vocation_summary: Option<String>,
    #[schema(
        max_length = 4000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$",
        nullable = false
    )]
    pub overlap_narrative: Option<String>,
    #[schema(
        max_length = 4000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$"
    )]
    pub near_term_goal_summary: Option<String>,
    #[schema(
        max_length = 4000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$"
    )]
    pub long_term_goal_summary: Option<String>,
}

/// A reflection turn: exactly one of `{"opener": true}` or `{"message": "..."}`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ReflectRequest {
    Opener(ReflectOpener),
    Message(ReflectMessage),
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReflectOpener {
    #[schema(schema_with = only_true)]
    pub opener: bool,
}

/// `{"opener": false}` is refused: send a message instead.
fn only_true() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Boolean)
        .enum_values(Some([true]))
        .build()
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReflectMessage {
    #[schema(
        min_length = 1,
        max_length = 4000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\s][^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$"
    )]
    pub message: String,
}

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditableField {
    LoveSummary,
    StrengthSummary,
    MissionSummary,
    VocationSummary,
    OverlapNarrative,
    NearTermGoalSummary,
    LongTermGoalSummary,
}

#[derive(Debug, ToSchema)]
pub struct ProposedRevision {
    pub field: EditableField,
    pub value: Option<String>,
}

#[derive(Debug, ToSchema)]
pub struct ReflectReply {
    /// The coach's reply.
    pub message: String,
    /// The changes applied (none for an opener).
    pub revisions: Vec<ProposedRevision>,
    pub revision_note: Option<String>,
    pub profile: Profile,
}

/// What the next reflection turn would send to the language model; sent nowhere.
#[derive(Debug, ToSchema)]
pub struct ReflectPreview {
    #[schema(example = "offline")]
    pub provider: String,
    pub endpoint: Option<String>,
    /// The exact chat-completions body, or null when no request would be made (offline).
    #[schema(value_type = Option<Object>)]
    pub request: Option<serde_json::Value>,
    pub note: String,
}

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Author {
    Coach,
    Person,
}

#[derive(Debug, ToSchema)]
pub struct ReflectionMessageView {
    pub id: Uuid,
    pub author: Author,
    pub text: String,
    pub created_at: OffsetDateTime,
}

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RevisionOrigin {
    Extraction,
    Reflection,
    ManualEdit,
}

#[derive(Debug, ToSchema)]
pub struct Revision {
    pub id: Uuid,
    #[schema(minimum = 1)]
    pub number: i64,
    pub origin: RevisionOrigin,
    /// Every prose field, the type and the triad as they were after this revision.
    #[schema(value_type = Object)]
    pub snapshot: serde_json::Value,
    pub note: Option<String>,
    pub created_at: OffsetDateTime,
}

// ---------------------------------------------------------------------------------------------
// Coaching

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Frequency {
    Weekly,
    Biweekly,
    Monthly,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    Direct,
    Warm,
    Reflective,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Friction {
    Low,
    Medium,
    High,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimeOfDay {
    Morning,
    Afternoon,
    Evening,
    Any,
}

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PreferencesSource {
    Derived,
    Override,
}

#[derive(Debug, ToSchema)]
pub struct Preferences {
    pub coaching_frequency: Frequency,
    pub coaching_style: Style,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub misalignment_threshold: f64,
    pub friction_tolerance: Friction,
    pub prefer_questions_over_directives: bool,
    pub time_of_day_preference: TimeOfDay,
    pub source: PreferencesSource,
    pub updated_at: OffsetDateTime,
}

/// All six settings; stored with `source: "override"`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreferencesRequest {
    pub coaching_frequency: Frequency,
    pub coaching_style: Style,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub misalignment_threshold: f64,
    pub friction_tolerance: Friction,
    pub prefer_questions_over_directives: bool,
    pub time_of_day_preference: TimeOfDay,
}

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckInOrigin {
    Manual,
    Batch,
}

#[derive(Debug, ToSchema)]
pub struct CheckIn {
    pub id: Uuid,
    pub message: String,
    /// The person's goal summaries, verbatim (the mission summary when no goal was stated).
    pub quoted_goals: Vec<String>,
    /// Where logged time went in the last 14 days; null when none was logged.
    pub observation: Option<String>,
    pub origin: CheckInOrigin,
    pub created_at: OffsetDateTime,
    pub responded_at: Option<OffsetDateTime>,
    pub still_valid: Option<bool>,
    pub response_note: Option<String>,
}

#[derive(Debug, ToSchema)]
pub struct CheckInPage {
    pub items: Vec<CheckIn>,
    /// Pass as `before` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckInResponseRequest {
    pub still_valid: bool,
    #[schema(
        max_length = 2000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$"
    )]
    pub note: Option<String>,
}

#[derive(Debug, ToSchema)]
pub struct RunReport {
    pub considered: u64,
    pub created: u64,
}

// ---------------------------------------------------------------------------------------------
// Integration

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FoundationKey {
    Love,
    Strength,
    Mission,
    Vocation,
    ShortTerm,
    LongTerm,
}

#[derive(Debug, ToSchema)]
pub struct Foundation {
    pub key: FoundationKey,
    pub title: String,
    pub description: String,
}

/// One time entry. Idempotent per `(caller, external_task_id)`: a repeat replaces the row.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskMappingRequest {
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\s][^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$"
    )]
    pub external_task_id: String,
    #[schema(
        max_length = 500,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$"
    )]
    pub task_label: Option<String>,
    pub foundation: FoundationKey,
    #[schema(minimum = 0, maximum = 1440)]
    pub minutes: u16,
    pub occurred_at: OffsetDateTime,
}

#[derive(Debug, ToSchema)]
pub struct TaskMapping {
    pub id: Uuid,
    pub user_id: Uuid,
    pub external_task_id: String,
    pub task_label: Option<String>,
    pub foundation: FoundationKey,
    #[schema(minimum = 0, maximum = 1440)]
    pub minutes: u16,
    pub occurred_at: OffsetDateTime,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

#[derive(Debug, ToSchema)]
pub struct TaskMappingPage {
    pub items: Vec<TaskMapping>,
    pub next_cursor: Option<String>,
}

/// All or nothing: one invalid item refuses the whole batch, naming `items[k].field`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskMappingBatchRequest {
    #[schema(max_items = 1000)]
    pub items: Vec<TaskMappingRequest>,
}

#[derive(Debug, ToSchema)]
pub struct BatchReport {
    pub created: u64,
    pub updated: u64,
}

#[derive(Debug, ToSchema)]
pub struct FoundationShare {
    pub foundation: FoundationKey,
    pub minutes: u64,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub share: f64,
    /// Share below 0.05.
    pub neglected: bool,
}

#[derive(Debug, ToSchema)]
pub struct DailyMinutes {
    /// A UTC calendar date, `YYYY-MM-DD`.
    #[schema(format = Date)]
    pub date: String,
    /// Minutes per foundation key, all six.
    #[schema(value_type = Object)]
    pub minutes: serde_json::Value,
}

#[derive(Debug, ToSchema)]
pub struct WorkPattern {
    #[schema(minimum = 1, maximum = 365)]
    pub days: u16,
    pub from: OffsetDateTime,
    pub to: OffsetDateTime,
    pub total_minutes: u64,
    /// All six, in order.
    pub foundations: Vec<FoundationShare>,
    pub neglected: Vec<FoundationKey>,
    pub summary: String,
    /// One entry per UTC date the window touches, oldest first.
    pub daily: Vec<DailyMinutes>,
}

// ---------------------------------------------------------------------------------------------
// Account and activity

#[derive(Debug, ToSchema)]
pub struct AuthConfig {
    /// `GET /api/auth/login` leads to an identity provider.
    pub sign_in: bool,
    /// `POST /api/auth/dev-login` is on (dev mode, loopback only).
    pub dev_login: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DevLoginRequest {
    /// One `@` between parts without white space; the address is stored lower-cased.
    #[schema(
        example = "ada@example.org",
        max_length = 320,
        pattern = "^[^\\s@\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]+@[^\\s@\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]+$"
    )]
    pub email: String,
}

#[derive(Debug, ToSchema)]
pub struct Me {
    pub id: Uuid,
    pub email: String,
    pub name: Option<String>,
    pub is_admin: bool,
    pub created_at: OffsetDateTime,
    pub last_login_at: Option<OffsetDateTime>,
}

#[derive(Debug, ToSchema)]
pub struct BySource {
    pub web: u64,
    pub api: u64,
    pub mcp: u64,
}

#[derive(Debug, ToSchema)]
pub struct Stats {
    pub total_requests: u64,
    pub requests_last_30_days: u64,
    pub by_source: BySource,
    pub task_mappings: u64,
    pub checkins: u64,
    pub reflection_turns: u64,
    pub first_activity_at: Option<OffsetDateTime>,
    pub last_activity_at: Option<OffsetDateTime>,
}

/// Every record of the caller's, as one document.
#[derive(Debug, ToSchema)]
pub struct Export {
    pub exported_at: OffsetDateTime,
    pub user: Me,
    pub conversations: Vec<Conversation>,
    pub profile: Option<Profile>,
    pub revisions: Vec<Revision>,
    pub reflection: Vec<ReflectionMessageView>,
    pub coaching_preferences: Option<Preferences>,
    pub checkins: Vec<CheckIn>,
    pub task_mappings: Vec<TaskMapping>,
    pub activity: Vec<ActivityEntry>,
    pub sessions: Vec<SessionView>,
    pub api_keys: Vec<ApiKeyView>,
}

#[derive(Debug, ToSchema)]
pub struct SessionView {
    pub id: Uuid,
    pub created_at: OffsetDateTime,
    pub last_used_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
    pub user_agent: Option<String>,
    pub ip: Option<String>,
    /// The session this request was made with.
    pub current: bool,
    pub revoked_at: Option<OffsetDateTime>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyRequest {
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\s][^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$"
    )]
    pub name: String,
}

/// A new key: `key` is shown this once and stored only as a hash.
#[derive(Debug, ToSchema)]
pub struct ApiKeyCreated {
    pub id: Uuid,
    pub name: String,
    pub key: String,
    pub prefix: String,
    pub created_at: OffsetDateTime,
}

#[derive(Debug, ToSchema)]
pub struct ApiKeyView {
    pub id: Uuid,
    pub name: String,
    pub prefix: String,
    pub created_at: OffsetDateTime,
    pub last_used_at: Option<OffsetDateTime>,
}

#[derive(Debug, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActivitySource {
    Web,
    Api,
    Mcp,
}

#[derive(Debug, ToSchema)]
pub struct ActivityEntry {
    pub id: Uuid,
    pub user_id: Option<Uuid>,
    pub at: OffsetDateTime,
    pub action: String,
    pub method: String,
    pub path: String,
    pub status: u16,
    pub source: Option<ActivitySource>,
    pub duration_ms: u64,
    pub request_id: String,
    /// The client's address (the peer's, or a trusted proxy's last `X-Forwarded-For` entry).
    pub ip: Option<String>,
    /// The `User-Agent` header, cut to 500 characters.
    pub user_agent: Option<String>,
}

#[derive(Debug, ToSchema)]
pub struct ActivityPage {
    pub items: Vec<ActivityEntry>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, ToSchema)]
pub struct DayCount {
    #[schema(format = Date)]
    pub date: String,
    pub count: u64,
}

#[derive(Debug, ToSchema)]
pub struct ActivitySummary {
    #[schema(minimum = 1, maximum = 365)]
    pub days: u16,
    /// Requests per action name.
    #[schema(value_type = Object)]
    pub by_action: serde_json::Value,
    /// Requests per source.
    #[schema(value_type = Object)]
    pub by_source: serde_json::Value,
    pub by_day: Vec<DayCount>,
}

// ---------------------------------------------------------------------------------------------
// Query strings

/// `?limit=&before=`, as every growing list is paged.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Items per page, 1-1,000 (default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// The `next_cursor` of the previous page.
    #[param(
        pattern = "^$|^-?[0-9]{1,17}_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    )]
    pub before: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TaskMappingQuery {
    /// Only entries at or after this time (RFC 3339); empty means no bound.
    #[param(schema_with = time_or_empty)]
    pub from: Option<String>,
    /// Only entries before this time (RFC 3339); empty means no bound.
    #[param(schema_with = time_or_empty)]
    pub to: Option<String>,
    /// Only this foundation; empty means all.
    #[param(schema_with = foundation_or_empty)]
    pub foundation: Option<String>,
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    #[param(
        pattern = "^$|^-?[0-9]{1,17}_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    )]
    pub before: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WorkPatternQuery {
    /// The window in days, 1-365 (default 14).
    #[param(minimum = 1, maximum = 365)]
    pub days: Option<i64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SummaryQuery {
    /// The window in days, 1-365 (default 30).
    #[param(minimum = 1, maximum = 365)]
    pub days: Option<i64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AdminActivityQuery {
    /// Only this person's activity.
    pub user_id: Option<Uuid>,
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    #[param(
        pattern = "^$|^-?[0-9]{1,17}_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    )]
    pub before: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LoginQuery {
    /// A same-origin path to return to after sign-in (anything else is ignored).
    pub redirect: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CallbackQuery {
    pub code: Option<String>,
    pub state: Option<String>,
    pub iss: Option<String>,
    pub error: Option<String>,
}

/// The reflect body as a query: exactly one of `opener=true` or `message`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PreviewQuery {
    pub opener: Option<bool>,
    #[param(
        max_length = 4000,
        pattern = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\s][^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$"
    )]
    pub message: Option<String>,
}

/// An RFC 3339 time, or `""` for "not given" (as a form with an empty field sends it).
fn time_or_empty() -> utoipa::openapi::Schema {
    use utoipa::openapi::ObjectBuilder;
    use utoipa::openapi::schema::{KnownFormat, OneOfBuilder, Schema, SchemaFormat, Type};
    let one_of = OneOfBuilder::new()
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime))),
        )
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(0)),
        )
        .build();
    Schema::OneOf(one_of)
}

/// One of the six foundation keys, or `""` for all.
fn foundation_or_empty() -> utoipa::openapi::Object {
    use utoipa::openapi::ObjectBuilder;
    use utoipa::openapi::schema::Type;
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some([
            "",
            "love",
            "strength",
            "mission",
            "vocation",
            "short_term",
            "long_term",
        ]))
        .build()
}
