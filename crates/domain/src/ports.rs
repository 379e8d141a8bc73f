//! The ports: every trait through which the use cases reach the outside world. Storage ports
//! are one per aggregate; each write method is one transaction. Adapters implement them; tests
//! use the mockall mocks (`MockXxx`, also exported under the `mock` feature).

use std::collections::BTreeMap;

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::account::{
    AccountData, ActivityEntry, ActivityQuery, ActivitySummary, ApiKey, Email, LoginIdentity,
    RefreshToken, Session, TimeZone, TokenHash, User, UserStats,
};
use crate::coaching::{CheckIn, CoachingPreferences, CoachingStyle};
use crate::discovery::{Answer, Conversation, ExtractionDraft, ExtractionInput};
use crate::error::RepoError;
use crate::ids::{
    ApiKeyId, CheckInId, ConversationId, EventId, ProfileId, RefreshTokenId, RuleId, SessionId,
    UserId, WebhookId,
};
use crate::integration::{
    BatchOutcome, DailyMinutes, NewRule, Reclassification, ReclassifyStep, Rule, RuleChangeError,
    Sweep, TaskMapping, TaskMappingInput, TaskMappingQuery, UnmappedGroup, UnmappedQuery,
    UpsertOutcome, Weeks, Window,
};
use crate::notifications::{
    Delivery, DeliveryOutcome, NotificationSettings, OutboxEvent, Webhook, WebhookSecret,
    WebhookUrl, WebhookUrlError,
};
use crate::pagination::{Cursor, Page, PageLimit};
use crate::profile::{EnneagramType, NewRevision, Profile, Revision};
use crate::reflection::{CoachReplyDraft, ReflectionMessage, ReflectionTurn, ReplyEngine};

pub use crate::clock::Clock;
#[cfg(any(test, feature = "mock"))]
pub use crate::clock::MockClock;

/// People. # Errors: `Unavailable`/`Unexpected` on storage failure.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait UserRepository: Send + Sync {
    /// Creates the user on first sign-in, keyed by `(issuer, subject)`, or refreshes the e-mail,
    /// `last_login_at` and the name (a missing name keeps the stored one); returns the row.
    async fn upsert_login(
        &self,
        identity: &LoginIdentity,
        now: OffsetDateTime,
    ) -> Result<User, RepoError>;
    async fn get(&self, id: UserId) -> Result<Option<User>, RepoError>;
    async fn find_by_email(&self, email: &Email) -> Result<Option<User>, RepoError>;
    /// Deletes the user and every record that belongs to them; `false` when there was no such user.
    async fn delete(&self, id: UserId) -> Result<bool, RepoError>;
    /// Every record of the user, read in one consistent snapshot; `None` when there is no such user.
    async fn export(&self, id: UserId) -> Result<Option<AccountData>, RepoError>;
    /// Counts over the user's records; `since` bounds `requests_since`.
    async fn stats(&self, id: UserId, since: OffsetDateTime) -> Result<UserStats, RepoError>;
    /// The stored IANA name of the person's time zone; `None` when there is no such user.
    async fn time_zone(&self, id: UserId) -> Result<Option<String>, RepoError>;
    /// Stores the person's time zone; `false` when there is no such user.
    async fn set_time_zone(&self, id: UserId, zone: &TimeZone) -> Result<bool, RepoError>;
}

/// Sign-in sessions and their refresh tokens.
/// # Errors
/// `Conflict` from [`SessionRepository::rotate`] when the old token was already revoked.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SessionRepository: Send + Sync {
    /// Stores a new session with its first refresh token.
    async fn create(&self, session: &Session, token: &RefreshToken) -> Result<(), RepoError>;
    async fn get(&self, id: SessionId) -> Result<Option<Session>, RepoError>;
    /// The token with this hash, revoked or not, and its session.
    async fn find_refresh(
        &self,
        hash: &TokenHash,
    ) -> Result<Option<(RefreshToken, Session)>, RepoError>;
    /// Revokes `old` and stores `new` in one transaction, and marks the session used.
    async fn rotate(
        &self,
        old: RefreshTokenId,
        new: &RefreshToken,
        now: OffsetDateTime,
    ) -> Result<(), RepoError>;
    /// Stores one more token of an active session (the refresh grace: a second tab refreshing
    /// with the token the first one just rotated) and marks the session used.
    /// [`RepoError::NotFound`] when the session is revoked or unknown.
    async fn add_refresh(&self, new: &RefreshToken, now: OffsetDateTime) -> Result<(), RepoError>;
    /// Revokes a session of `user` and all its tokens; `false` when it is not theirs or unknown.
    async fn revoke(
        &self,
        user: UserId,
        id: SessionId,
        now: OffsetDateTime,
    ) -> Result<bool, RepoError>;
    /// The user's sessions that are neither revoked nor expired, newest first.
    async fn list_active(
        &self,
        user: UserId,
        now: OffsetDateTime,
    ) -> Result<Vec<Session>, RepoError>;
}

/// Personal API keys (hashes only).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ApiKeyRepository: Send + Sync {
    async fn create(&self, key: &ApiKey) -> Result<(), RepoError>;
    /// The user's keys that are not revoked, newest first.
    async fn list(&self, user: UserId) -> Result<Vec<ApiKey>, RepoError>;
    /// `false` when the key is not the user's or already revoked.
    async fn revoke(
        &self,
        user: UserId,
        id: ApiKeyId,
        now: OffsetDateTime,
    ) -> Result<bool, RepoError>;
    /// The unrevoked key with this hash. Records `now` as its `last_used_at`, but writes at most
    /// once a minute per key so that authenticating stays a read on the hot path.
    async fn authenticate(
        &self,
        hash: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<Option<ApiKey>, RepoError>;
}

/// Discovery conversations.
/// # Errors
/// `Conflict` from [`ConversationRepository::save_answer`] once the conversation is completed,
/// and from [`ConversationRepository::create`] while another one is in progress.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ConversationRepository: Send + Sync {
    /// The user's most recent conversation with its answers.
    async fn latest(&self, user: UserId) -> Result<Option<Conversation>, RepoError>;
    async fn create(&self, conversation: &Conversation) -> Result<(), RepoError>;
    /// Inserts or replaces one answer (and the raw goal text for steps 6 and 7).
    async fn save_answer(&self, id: ConversationId, answer: &Answer) -> Result<(), RepoError>;
}

/// Everything one profile change writes, committed together or not at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileWrite {
    pub profile: Profile,
    /// The version the change was computed from; `None` inserts a new profile.
    pub expected_version: Option<i64>,
    pub revision: Option<NewRevision>,
    /// Reflection turns stored with the change.
    pub reflection: Vec<ReflectionMessage>,
    /// Completes this conversation in the same transaction (extraction).
    pub completes: Option<(ConversationId, OffsetDateTime)>,
    /// Written to the outbox in the same transaction ([`crate::notifications::profile_events`]).
    pub events: Vec<OutboxEvent>,
}

/// Profiles and their revisions.
/// # Errors
/// `Conflict` from [`ProfileRepository::write`] when the stored version is not `expected_version`,
/// when inserting a second profile for a user, or when the conversation to complete is completed.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ProfileRepository: Send + Sync {
    async fn get(&self, user: UserId) -> Result<Option<Profile>, RepoError>;
    /// Applies a change atomically; returns the recorded revision, numbered.
    async fn write(&self, write: ProfileWrite) -> Result<Option<Revision>, RepoError>;
    /// The profile's revisions, oldest first.
    async fn revisions(&self, profile: ProfileId) -> Result<Vec<Revision>, RepoError>;
    /// The profile's revision of that number, if there is one.
    async fn revision(
        &self,
        profile: ProfileId,
        number: u32,
    ) -> Result<Option<Revision>, RepoError>;
    /// Users whose profile is locked, in id order after `after` (keyset paging for the batch run).
    async fn locked_users(
        &self,
        after: Option<UserId>,
        limit: PageLimit,
    ) -> Result<Vec<UserId>, RepoError>;
}

/// Reflection dialogue turns that change nothing else.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ReflectionRepository: Send + Sync {
    async fn append(&self, messages: &[ReflectionMessage]) -> Result<(), RepoError>;
    /// The user's dialogue, oldest first.
    async fn list(&self, user: UserId) -> Result<Vec<ReflectionMessage>, RepoError>;
}

/// Coaching preferences.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PreferencesRepository: Send + Sync {
    async fn get(&self, user: UserId) -> Result<Option<CoachingPreferences>, RepoError>;
    /// Inserts or replaces the user's preferences.
    async fn put(&self, preferences: &CoachingPreferences) -> Result<(), RepoError>;
}

/// What the scheduled run needs to decide whether one person's check-in is due and to write it.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckInCandidate {
    /// The person's profile (the run asks only for affirmed ones).
    pub profile: Profile,
    /// The stored preferences; `None` until the person (or the API's first read) stored some.
    pub preferences: Option<CoachingPreferences>,
    /// When the person's latest check-in was written, if any.
    pub last_checkin_at: Option<OffsetDateTime>,
    /// The person's time zone: whose calendar days the check-in observes.
    pub time_zone: TimeZone,
}

/// A check-in to insert unless its person already has one created after `since`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardedCheckIn {
    pub checkin: CheckIn,
    pub since: OffsetDateTime,
}

/// Check-ins.
/// # Errors
/// `Conflict` from [`CheckInRepository::save_response`] when a response is already stored.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait CheckInRepository: Send + Sync {
    /// Newest first.
    async fn list(
        &self,
        user: UserId,
        limit: PageLimit,
        before: Option<Cursor>,
    ) -> Result<Page<CheckIn>, RepoError>;
    async fn get(&self, user: UserId, id: CheckInId) -> Result<Option<CheckIn>, RepoError>;
    async fn insert(&self, checkin: &CheckIn) -> Result<(), RepoError>;
    /// Inserts unless the user already has a check-in created after `since`; safe when several
    /// hosts run it at once. Returns whether it inserted.
    async fn insert_unless_recent(
        &self,
        checkin: &CheckIn,
        since: OffsetDateTime,
    ) -> Result<bool, RepoError>;
    /// Inserts, in one transaction, every check-in whose person has none created after its
    /// `since` (checked inside the transaction, so several hosts may run it at once over the
    /// same people without creating duplicates). Returns how many it inserted.
    async fn insert_unless_recent_batch(&self, batch: &[GuardedCheckIn]) -> Result<u64, RepoError>;
    /// Stores `checkin.response` unless a response exists.
    async fn save_response(&self, checkin: &CheckIn) -> Result<(), RepoError>;
    async fn latest_created_at(&self, user: UserId) -> Result<Option<OffsetDateTime>, RepoError>;
    /// One keyset page of the people whose profile is affirmed, in user id order after `after`,
    /// each with their stored preferences and the time of their latest check-in (for the run).
    async fn candidates(
        &self,
        after: Option<UserId>,
        limit: PageLimit,
    ) -> Result<Vec<CheckInCandidate>, RepoError>;
}

/// Task mappings and the rollup over them.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TaskMappingRepository: Send + Sync {
    /// Inserts, or updates the row with the same `(user, external_task_id)`. An input without a
    /// foundation gets the one of the person's first matching rule, read in the same
    /// transaction, or none.
    async fn upsert(
        &self,
        user: UserId,
        input: &TaskMappingInput,
        now: OffsetDateTime,
    ) -> Result<(TaskMapping, UpsertOutcome), RepoError>;
    /// Upserts every item in one transaction; returns how many it created and updated. Takes the items
    /// whole: the storage works on them on its own thread.
    async fn upsert_batch(
        &self,
        user: UserId,
        inputs: Vec<TaskMappingInput>,
        now: OffsetDateTime,
    ) -> Result<BatchOutcome, RepoError>;
    /// Newest `occurred_at` first.
    async fn list(
        &self,
        user: UserId,
        query: &TaskMappingQuery,
    ) -> Result<Page<TaskMapping>, RepoError>;
    /// `false` when the user has no such mapping.
    async fn delete(&self, user: UserId, external_task_id: &str) -> Result<bool, RepoError>;
    /// Deletes, in one transaction, the user's entries that `sweep` takes ([`Sweep::takes`]):
    /// its prefix (compared exactly, case included), its range, sent before its
    /// `not_sent_since`. An entry sent while the sweep runs is kept. Returns how many went.
    async fn sweep(&self, user: UserId, sweep: &Sweep) -> Result<u64, RepoError>;
    /// The unmapped entries of the window grouped by label and tags, most minutes first.
    async fn unmapped(
        &self,
        user: UserId,
        query: &UnmappedQuery,
    ) -> Result<Vec<UnmappedGroup>, RepoError>;
    /// Minutes per local date of `zone` and foundation inside the window, and the unmapped
    /// minutes per date, summed by the database (dates without entries are absent).
    async fn daily_minutes(
        &self,
        user: UserId,
        window: &Window,
        zone: &TimeZone,
    ) -> Result<Vec<DailyMinutes>, RepoError>;
    /// Minutes per local week of `zone` (keyed by its Monday in `date`) and foundation inside
    /// the weeks, and the unmapped minutes per week, summed by the database (weeks without
    /// entries are absent).
    async fn weekly_minutes(
        &self,
        user: UserId,
        weeks: &Weeks,
        zone: &TimeZone,
    ) -> Result<Vec<DailyMinutes>, RepoError>;
    /// Minutes per local date of `zone` for several people of that zone, in one aggregate per
    /// offset span of the window (what the check-in run observes); people who logged nothing in
    /// the window are absent.
    async fn daily_minutes_of(
        &self,
        users: &[UserId],
        window: &Window,
        zone: &TimeZone,
    ) -> Result<BTreeMap<UserId, Vec<DailyMinutes>>, RepoError>;
}

/// A person's mapping rules, and the re-classification of their entries. Every change commits
/// the rule at once and, in the same transaction, queues (or restarts) the person's job, which
/// then decides again, in short steps, the entries whose foundation is unmapped or came from a
/// rule and that the changed rule matched before or matches now (never one the tracker sent).
/// Its end state is that of one atomic pass with the rules as they then stand.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait RuleRepository: Send + Sync {
    /// By position.
    async fn list(&self, user: UserId) -> Result<Vec<Rule>, RepoError>;
    /// [`RuleChangeError::TooMany`] at [`crate::integration::MAX_RULES_PER_USER`].
    async fn create(
        &self,
        user: UserId,
        rule: &NewRule,
        now: OffsetDateTime,
    ) -> Result<Rule, RuleChangeError>;
    /// [`RuleChangeError::NotFound`] when the person has no such rule.
    async fn replace(
        &self,
        user: UserId,
        id: RuleId,
        rule: &NewRule,
        now: OffsetDateTime,
    ) -> Result<Rule, RuleChangeError>;
    /// [`RuleChangeError::NotFound`] when the person has no such rule.
    async fn delete(
        &self,
        user: UserId,
        id: RuleId,
        now: OffsetDateTime,
    ) -> Result<(), RuleChangeError>;
    /// How far the person's re-classification is; idle when none is queued.
    async fn reclassification(&self, user: UserId) -> Result<Reclassification, RepoError>;
    /// People whose re-classification is queued or running, at most `limit`.
    async fn reclassification_queue(&self, limit: u32) -> Result<Vec<UserId>, RepoError>;
    /// Decides the next stretch of the person's queued entries again, in short transactions
    /// that hold nothing others need for long; a crash between steps loses only the step.
    async fn reclassify_step(
        &self,
        user: UserId,
        now: OffsetDateTime,
    ) -> Result<ReclassifyStep, RepoError>;
}

/// The activity log.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ActivityRepository: Send + Sync {
    /// Stores a batch in one transaction and returns how many entries it kept: those of a
    /// person deleted meanwhile are skipped (they would have been deleted with them).
    async fn record(&self, entries: &[ActivityEntry]) -> Result<usize, RepoError>;
    /// Newest first.
    async fn list(&self, query: &ActivityQuery) -> Result<Page<ActivityEntry>, RepoError>;
    async fn summary(
        &self,
        user: UserId,
        since: OffsetDateTime,
    ) -> Result<ActivitySummary, RepoError>;
    /// Deletes entries older than `before`, and any of a person who no longer exists; returns
    /// how many.
    async fn prune(&self, before: OffsetDateTime) -> Result<u64, RepoError>;
}

/// A language-model (or offline engine) failure.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("the model did not answer in time")]
    Timeout,
    #[error("the model is rate limited")]
    RateLimited,
    #[error("the model is unavailable: {0}")]
    Unavailable(String),
}

/// Reads a profile draft out of the answers.
/// # Errors
/// [`ModelError`] when no reply could be had; a bad reply is returned as text and judged by the domain.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Extractor: Send + Sync {
    /// Returns the raw reply. `feedback` says what was wrong with the previous reply, on the one retry.
    async fn extract(
        &self,
        input: &ExtractionInput,
        feedback: Option<String>,
    ) -> Result<String, ModelError>;

    /// The offline engine's reading of the same answers (its mirror of each field, with their
    /// sources): what is stored for a field whose text does not rest on the person's words, and
    /// for a goal they stated that the reply did not keep (docs/api.md, "Provenance"). Asked for only
    /// when needed; `None` when there is none, and an ungrounded reply is then refused.
    fn mirror(&self, input: &ExtractionInput) -> Option<ExtractionDraft>;

    /// The offline engine's reading of `drives` (sentences of a drives answer) as a type, when
    /// it is clear; `None` when it cannot tell. The type rule (`discovery::type_rule`) checks an
    /// extractor's type against it.
    fn read_type(&self, drives: &str) -> Option<EnneagramType>;
}

/// What the coach sees for one turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoachRequest {
    pub profile: Profile,
    pub dialogue: Vec<ReflectionMessage>,
    pub style: CoachingStyle,
    pub turn: ReflectionTurn,
    /// What was wrong with the previous reply, on the one retry.
    pub feedback: Option<String>,
}

/// The reflection coach.
/// # Errors
/// [`ModelError`] when no reply could be had.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Coach: Send + Sync {
    /// Returns the raw reply, expected to be `{message, revisions, revision_note}`.
    async fn reply(&self, request: &CoachRequest) -> Result<String, ModelError>;

    /// The offline coach's reply to the same turn: its revision of a field stands in for a
    /// revision whose words do not rest on the person's (docs/api.md, "Provenance"). Asked for only
    /// when needed; `None` when there is none, and such a revision is then dropped.
    fn mirror_reply(&self, request: &CoachRequest) -> Option<CoachReplyDraft>;

    /// The engine whose replies [`Coach::reply`] returns.
    fn engine(&self) -> ReplyEngine;
}

/// The start of a sign-in at the identity provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationRequest {
    /// Where to send the browser.
    pub url: String,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
}

/// What a verified ID token says about the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedIdentity {
    /// The issuer that vouched for the person; with `subject` it names them for good.
    pub issuer: String,
    pub subject: String,
    pub email: String,
    pub email_verified: bool,
    pub name: Option<String>,
}

/// A sign-in failure at or with the identity provider.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("the identity provider could not be reached")]
    Unreachable(#[source] anyhow::Error),
    #[error("the provider refused our client or its settings are unusable")]
    Misconfigured(#[source] anyhow::Error),
    /// The code, its PKCE verifier, or the response's `iss` (RFC 9207) was refused.
    #[error("the authorization code was refused")]
    CodeRejected,
    #[error("the ID token failed verification")]
    InvalidToken(#[source] anyhow::Error),
}

/// An OpenID Connect provider.
/// # Errors
/// [`IdentityError`] as named.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait IdentityProvider: Send + Sync {
    /// Builds an authorization-code request with PKCE (S256), `state` and `nonce`.
    async fn begin(&self) -> Result<AuthorizationRequest, IdentityError>;
    /// Checks the callback's `iss` parameter (RFC 9207) when given or announced, exchanges the
    /// code and verifies the ID token (signature, issuer, audience, expiry, nonce).
    async fn finish(
        &self,
        code: &str,
        pkce_verifier: &str,
        nonce: &str,
        iss: Option<String>,
    ) -> Result<VerifiedIdentity, IdentityError>;
}

/// The e-mail setting, webhook endpoints and their delivery log.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait NotificationRepository: Send + Sync {
    /// The person's setting; e-mail is off when they never set it.
    async fn settings(&self, user: UserId) -> Result<NotificationSettings, RepoError>;
    async fn put_settings(
        &self,
        settings: NotificationSettings,
        at: OffsetDateTime,
    ) -> Result<(), RepoError>;
    /// Registers `webhook` unless its person already has
    /// [`MAX_WEBHOOKS_PER_USER`](crate::notifications::MAX_WEBHOOKS_PER_USER) (then `false`),
    /// counted in the same transaction.
    async fn create_webhook(&self, webhook: &Webhook) -> Result<bool, RepoError>;
    /// The person's endpoints, newest first.
    async fn webhooks(&self, user: UserId) -> Result<Vec<Webhook>, RepoError>;
    /// Deletes the endpoint and its delivery log; `false` when the person has no such endpoint.
    async fn delete_webhook(&self, user: UserId, id: WebhookId) -> Result<bool, RepoError>;
    /// Queues `ping` for that endpoint alone; `false` when the person has no such endpoint.
    async fn ping(
        &self,
        user: UserId,
        id: WebhookId,
        ping: &OutboxEvent,
    ) -> Result<bool, RepoError>;
    /// The endpoint's deliveries, newest first; `None` when the person has no such endpoint.
    async fn deliveries(
        &self,
        user: UserId,
        id: WebhookId,
        limit: PageLimit,
        before: Option<Cursor>,
    ) -> Result<Option<Page<Delivery>>, RepoError>;
}

/// What a claimed delivery goes to, as it stands when claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryTarget {
    /// An endpoint; `None` when it has been disabled since (nothing is sent).
    Webhook(Option<(WebhookUrl, WebhookSecret)>),
    /// The account's address, and whether the person still wants check-ins by e-mail.
    Email { to: String, enabled: bool },
}

/// A delivery a worker has claimed (under a lease), with what sending it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedDelivery {
    pub delivery: Delivery,
    pub user_id: UserId,
    /// The event's body, byte for byte.
    pub payload: String,
    pub target: DeliveryTarget,
}

/// How much is waiting (the metrics and `discovery-batch deliver`'s summary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueStats {
    pub pending: u64,
    /// When the oldest pending delivery's event happened.
    pub oldest_pending_at: Option<OffsetDateTime>,
}

/// The deliveries as workers see them. Several workers (processes or hosts) may claim at once:
/// each due delivery goes to one of them until its lease ends.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait DeliveryQueue: Send + Sync {
    /// Claims at most `limit` due deliveries (pending, due by `now`, not leased or the lease
    /// over), oldest due first, leased until `now + lease`.
    async fn claim(
        &self,
        now: OffsetDateTime,
        limit: u32,
        lease: std::time::Duration,
    ) -> Result<Vec<ClaimedDelivery>, RepoError>;
    /// Stores claimed deliveries after their attempts, in one transaction (and ends their
    /// leases). For a webhook, a delivered one clears the endpoint's run of failures, and one
    /// that failed for good adds to it, disabling the endpoint at
    /// [`DISABLE_AFTER_FAILURES`](crate::notifications::DISABLE_AFTER_FAILURES).
    async fn finish(&self, deliveries: &[Delivery], at: OffsetDateTime) -> Result<(), RepoError>;
    async fn stats(&self) -> Result<QueueStats, RepoError>;
}

/// The links a check-in e-mail carries.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait MailLinks: Send + Sync {
    /// The coaching page at this check-in.
    fn checkin_url(&self, checkin: CheckInId) -> String;
    /// The RFC 8058 one-click URL that turns this person's check-in e-mails off.
    fn unsubscribe_url(&self, user: UserId) -> String;
}

/// One signed webhook request to make: the event's payload, byte for byte, to `url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRequest {
    pub url: WebhookUrl,
    pub secret: WebhookSecret,
    /// The `webhook-id`: the same on every attempt of the event.
    pub event_id: EventId,
    /// The `webhook-timestamp` of this attempt.
    pub timestamp: OffsetDateTime,
    pub payload: String,
}

/// Sends webhooks (Standard Webhooks signatures), refusing private destinations unless allowed.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Whether `url` may be registered now: its host resolves, and only to addresses a request
    /// may go to. Sending checks every connection again.
    async fn check_destination(&self, url: &WebhookUrl) -> Result<(), WebhookUrlError>;
    /// One attempt: delivered on a 2xx answer within the time limit, failed otherwise.
    async fn send(&self, request: &WebhookRequest) -> DeliveryOutcome;
}

/// A check-in by e-mail: what it says, where to answer it and how to stop these mails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckInMail {
    /// The account's e-mail address.
    pub to: String,
    /// The check-in's question.
    pub message: String,
    /// The person's goals, verbatim.
    pub quoted_goals: Vec<String>,
    pub observation: Option<String>,
    /// The coaching page, at this check-in.
    pub answer_url: String,
    /// The RFC 8058 one-click URL (`POST`), signed for this person and this setting.
    pub unsubscribe_url: String,
}

/// Sends e-mail.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Mailer: Send + Sync {
    /// One attempt: delivered once the mail server accepted the message.
    async fn send_checkin(&self, mail: &CheckInMail) -> DeliveryOutcome;
}
