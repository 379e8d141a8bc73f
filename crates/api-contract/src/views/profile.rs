//! The profile responses: the profile itself, its revisions, the reflection dialogue, a
//! reflection turn's reply and the preview of the next model request.

use domain::ids::{ProfileId, ReflectionMessageId, RevisionId};
use domain::profile::{Profile, ProseFields, Revision, Snapshot};
use domain::reflection::ReflectionMessage;
use domain::services::profile::ReflectionOutcome;
use domain::text::Prose;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::enum_schemas;
use super::sources::SourcesView;

/// The profile (`/discovery/profile/me`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Profile)]
pub struct ProfileView<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: ProfileId,
    #[schema(minimum = 1, maximum = 9)]
    enneagram_type: u8,
    #[schema(value_type = enum_schemas::Triad)]
    triad: &'static str,
    love_summary: &'a str,
    strength_summary: &'a str,
    mission_summary: &'a str,
    vocation_summary: &'a str,
    overlap_narrative: &'a str,
    near_term_goal_summary: Option<&'a str>,
    long_term_goal_summary: Option<&'a str>,
    /// For each editable field, the person's own words it rests on, verified.
    sources: SourcesView<'a>,
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

impl<'a> From<&'a Profile> for ProfileView<'a> {
    fn from(p: &'a Profile) -> Self {
        let prose = &p.prose;
        Self {
            id: p.id,
            enneagram_type: p.enneagram_type.get(),
            triad: p.triad().key(),
            love_summary: prose.love_summary.as_str(),
            strength_summary: prose.strength_summary.as_str(),
            mission_summary: prose.mission_summary.as_str(),
            vocation_summary: prose.vocation_summary.as_str(),
            overlap_narrative: prose.overlap_narrative.as_str(),
            near_term_goal_summary: goal(&prose.near_term_goal_summary),
            long_term_goal_summary: goal(&prose.long_term_goal_summary),
            sources: SourcesView::from(&p.sources),
            locked: p.locked,
            affirmed_at: p.affirmed_at,
            version: p.version,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

fn goal(summary: &Option<Prose>) -> Option<&str> {
    summary.as_ref().map(Prose::as_str)
}

/// Every prose field, the type, the triad and the sources as they were after a revision.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Snapshot)]
pub struct SnapshotView<'a> {
    #[schema(minimum = 1, maximum = 9)]
    enneagram_type: u8,
    #[schema(value_type = enum_schemas::Triad)]
    triad: &'static str,
    love_summary: &'a str,
    strength_summary: &'a str,
    mission_summary: &'a str,
    vocation_summary: &'a str,
    overlap_narrative: &'a str,
    near_term_goal_summary: Option<&'a str>,
    long_term_goal_summary: Option<&'a str>,
    /// The sources as they were (`[]` each in revisions recorded before provenance).
    sources: SourcesView<'a>,
}

impl<'a> From<&'a Snapshot> for SnapshotView<'a> {
    fn from(s: &'a Snapshot) -> Self {
        let ProseFields {
            love_summary,
            strength_summary,
            mission_summary,
            vocation_summary,
            overlap_narrative,
            near_term_goal_summary,
            long_term_goal_summary,
        } = &s.prose;
        Self {
            enneagram_type: s.enneagram_type.get(),
            triad: s.triad.key(),
            love_summary: love_summary.as_str(),
            strength_summary: strength_summary.as_str(),
            mission_summary: mission_summary.as_str(),
            vocation_summary: vocation_summary.as_str(),
            overlap_narrative: overlap_narrative.as_str(),
            near_term_goal_summary: goal(near_term_goal_summary),
            long_term_goal_summary: goal(long_term_goal_summary),
            sources: SourcesView::from(&s.sources),
        }
    }
}

/// One entry of the revision history.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Revision)]
pub struct RevisionView<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: RevisionId,
    #[schema(minimum = 1)]
    number: i64,
    #[schema(value_type = enum_schemas::RevisionOrigin)]
    origin: &'static str,
    /// Every prose field, the type and the triad as they were after this revision.
    snapshot: SnapshotView<'a>,
    note: Option<&'a str>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

impl<'a> From<&'a Revision> for RevisionView<'a> {
    fn from(r: &'a Revision) -> Self {
        Self {
            id: r.id,
            number: i64::from(r.number),
            origin: r.origin.key(),
            snapshot: SnapshotView::from(&r.snapshot),
            note: r.note.as_ref().map(|n| n.as_str()),
            created_at: r.created_at,
        }
    }
}

/// One message of the reflection dialogue.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReflectionMessageView<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: ReflectionMessageId,
    #[schema(value_type = enum_schemas::Author)]
    author: &'static str,
    text: &'a str,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

impl<'a> From<&'a ReflectionMessage> for ReflectionMessageView<'a> {
    fn from(m: &'a ReflectionMessage) -> Self {
        Self {
            id: m.id,
            author: m.author.key(),
            text: &m.text,
            created_at: m.created_at,
        }
    }
}

/// One change the coach applied.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ProposedRevision)]
pub struct ProposedRevisionView<'a> {
    #[schema(value_type = enum_schemas::EditableField)]
    field: &'static str,
    value: Option<&'a str>,
}

/// A reflection turn's answer (`POST /discovery/profile/me/reflect`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ReflectReply)]
pub struct ReflectReplyView<'a> {
    /// The coach's reply.
    message: &'a str,
    /// The changes applied (none for an opener).
    revisions: Vec<ProposedRevisionView<'a>>,
    revision_note: Option<&'a str>,
    profile: ProfileView<'a>,
}

impl<'a> From<&'a ReflectionOutcome> for ReflectReplyView<'a> {
    fn from(outcome: &'a ReflectionOutcome) -> Self {
        let reply = &outcome.reply;
        Self {
            message: reply.message.as_str(),
            revisions: reply
                .edit
                .changes()
                .map(|(field, value)| ProposedRevisionView {
                    field: field.name(),
                    value: value.as_ref().map(Prose::as_str),
                })
                .collect(),
            revision_note: reply.revision_note.as_ref().map(|n| n.as_str()),
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
