//! The profile responses: the profile itself, its revisions, the reflection dialogue, a
//! reflection turn's reply and the preview of the next model request.

use domain::ids::{ProfileId, ReflectionMessageId, RevisionId};
use domain::profile::{EnneagramType, Profile, ProseFields, Revision, Snapshot, Sources, Triad};
use domain::reflection::{ReflectionMessage, ReplyEngine};
use domain::services::profile::ReflectionOutcome;
use domain::text::Prose;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::enum_schemas;
use super::sources::SourcesView;

/// The profile (`/discovery/profile/me`): the fields every revision keeps (a `Snapshot`), and
/// its id, lock and version.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Profile)]
pub struct ProfileView {
    #[schema(value_type = uuid::Uuid)]
    id: ProfileId,
    #[serde(flatten)]
    snapshot: SnapshotView,
    locked: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    affirmed_at: Option<OffsetDateTime>,
    #[schema(minimum = 1)]
    version: i64,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    updated_at: OffsetDateTime,
}

impl From<&Profile> for ProfileView {
    fn from(p: &Profile) -> Self {
        Self {
            id: p.id,
            snapshot: SnapshotView::of(p.enneagram_type, p.triad(), &p.prose, &p.sources),
            locked: p.locked,
            affirmed_at: p.affirmed_at,
            version: p.version,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

fn goal(summary: &Option<Prose>) -> Option<String> {
    summary.as_ref().map(|s| s.as_str().to_owned())
}

/// Every prose field, the type, the triad and the sources: as they are in the profile, and as
/// they were after each revision.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Snapshot)]
pub struct SnapshotView {
    #[schema(minimum = 1, maximum = 9)]
    enneagram_type: u8,
    #[schema(value_type = enum_schemas::Triad)]
    triad: &'static str,
    love_summary: String,
    strength_summary: String,
    mission_summary: String,
    vocation_summary: String,
    overlap_narrative: String,
    near_term_goal_summary: Option<String>,
    long_term_goal_summary: Option<String>,
    /// For each editable field, the person's own words it rests on, verified (`[]` each in
    /// revisions recorded before provenance).
    sources: SourcesView,
}

impl From<&Snapshot> for SnapshotView {
    fn from(s: &Snapshot) -> Self {
        Self::of(s.enneagram_type, s.triad, &s.prose, &s.sources)
    }
}

impl SnapshotView {
    /// The fields of a profile or of a revision's snapshot, from their parts.
    fn of(
        enneagram_type: EnneagramType,
        triad: Triad,
        prose: &ProseFields,
        sources: &Sources,
    ) -> Self {
        let ProseFields {
            love_summary,
            strength_summary,
            mission_summary,
            vocation_summary,
            overlap_narrative,
            near_term_goal_summary,
            long_term_goal_summary,
        } = prose;
        Self {
            enneagram_type: enneagram_type.get(),
            triad: triad.key(),
            love_summary: love_summary.as_str().to_owned(),
            strength_summary: strength_summary.as_str().to_owned(),
            mission_summary: mission_summary.as_str().to_owned(),
            vocation_summary: vocation_summary.as_str().to_owned(),
            overlap_narrative: overlap_narrative.as_str().to_owned(),
            near_term_goal_summary: goal(near_term_goal_summary),
            long_term_goal_summary: goal(long_term_goal_summary),
            sources: SourcesView::from(sources),
        }
    }
}

/// One entry of the revision history.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Revision)]
pub struct RevisionView {
    #[schema(value_type = uuid::Uuid)]
    id: RevisionId,
    #[schema(minimum = 1)]
    number: i64,
    #[schema(value_type = enum_schemas::RevisionOrigin)]
    origin: &'static str,
    /// Every prose field, the type and the triad as they were after this revision.
    snapshot: SnapshotView,
    note: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

impl From<&Revision> for RevisionView {
    fn from(r: &Revision) -> Self {
        Self {
            id: r.id,
            number: i64::from(r.number),
            origin: r.origin.key(),
            snapshot: SnapshotView::from(&r.snapshot),
            note: r.note.as_ref().map(|n| n.as_str().to_owned()),
            created_at: r.created_at,
        }
    }
}

/// One message of the reflection dialogue.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReflectionMessageView {
    #[schema(value_type = uuid::Uuid)]
    id: ReflectionMessageId,
    #[schema(value_type = enum_schemas::Author)]
    author: &'static str,
    text: String,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    /// Which engine wrote a coach's message: `model`, or `offline` (the service's own coach,
    /// also where it stood in for a model reply resting on nothing the person wrote). Null for
    /// the person's messages and for coach messages stored before engines were recorded.
    #[schema(value_type = Option<enum_schemas::ReplyEngine>)]
    engine: Option<&'static str>,
}

impl From<&ReflectionMessage> for ReflectionMessageView {
    fn from(m: &ReflectionMessage) -> Self {
        Self {
            id: m.id,
            author: m.author.key(),
            text: m.text.clone(),
            created_at: m.created_at,
            engine: m.engine.map(ReplyEngine::key),
        }
    }
}

/// One change the coach applied.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ProposedRevision)]
pub struct ProposedRevisionView {
    #[schema(value_type = enum_schemas::EditableField)]
    field: &'static str,
    value: Option<String>,
}

/// A reflection turn's answer (`POST /discovery/profile/me/reflect`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ReflectReply)]
pub struct ReflectReplyView {
    /// The coach's reply.
    message: String,
    /// Which engine wrote it: `model`, or `offline` (see the reflection message's `engine`).
    #[schema(value_type = enum_schemas::ReplyEngine)]
    engine: &'static str,
    /// The changes applied (none for an opener).
    revisions: Vec<ProposedRevisionView>,
    revision_note: Option<String>,
    profile: ProfileView,
}

impl From<&ReflectionOutcome> for ReflectReplyView {
    fn from(outcome: &ReflectionOutcome) -> Self {
        let reply = &outcome.reply;
        Self {
            message: reply.message.as_str().to_owned(),
            engine: outcome.engine.key(),
            revisions: reply
                .edit
                .changes()
                .map(|(field, value)| ProposedRevisionView {
                    field: field.name(),
                    value: value.as_ref().map(|v| v.as_str().to_owned()),
                })
                .collect(),
            revision_note: reply.revision_note.as_ref().map(|n| n.as_str().to_owned()),
            profile: ProfileView::from(&outcome.profile),
        }
    }
}

/// What the next reflection turn would send to the language model; sent nowhere.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ReflectPreview)]
pub struct ReflectPreviewView {
    #[schema(example = "offline")]
    provider: &'static str,
    endpoint: Option<String>,
    /// The exact chat-completions body, or null when no request would be made (offline).
    #[schema(value_type = Option<Object>)]
    request: Option<serde_json::Value>,
    note: &'static str,
}

impl ReflectPreviewView {
    /// The preview of the language model's request (`adapters_llm::RequestPreview`'s parts).
    #[must_use]
    pub const fn new(
        provider: &'static str,
        endpoint: Option<String>,
        request: Option<serde_json::Value>,
        note: &'static str,
    ) -> Self {
        Self {
            provider,
            endpoint,
            request,
            note,
        }
    }
}
