//! `discovery_profile` rows, and the changeset a profile write applies.

use diesel::prelude::*;
use domain::profile::{EnneagramType, Profile, ProseFields, Sources};
use domain::text::Prose;
use time::PrimitiveDateTime;

use crate::convert::{from_db, from_db_opt, invalid, parse, to_db, to_db_opt};
use crate::schema::discovery_profile;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = discovery_profile)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct ProfileRow {
    pub id: String,
    pub user_id: String,
    pub enneagram_type: i32,
    pub love_summary: String,
    pub strength_summary: String,
    pub mission_summary: String,
    pub vocation_summary: String,
    pub overlap_narrative: String,
    pub locked: bool,
    pub affirmed_at: Option<PrimitiveDateTime>,
    pub version: i64,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
    pub near_term_goal_summary: Option<String>,
    pub long_term_goal_summary: Option<String>,
    /// [`Sources`] as JSON.
    pub sources: String,
}

impl From<&Profile> for ProfileRow {
    fn from(p: &Profile) -> Self {
        let prose = &p.prose;
        Self {
            id: p.id.to_string(),
            user_id: p.user_id.to_string(),
            enneagram_type: i32::from(p.enneagram_type.get()),
            love_summary: prose.love_summary.as_str().to_owned(),
            strength_summary: prose.strength_summary.as_str().to_owned(),
            mission_summary: prose.mission_summary.as_str().to_owned(),
            vocation_summary: prose.vocation_summary.as_str().to_owned(),
            overlap_narrative: prose.overlap_narrative.as_str().to_owned(),
            locked: p.locked,
            affirmed_at: to_db_opt(p.affirmed_at),
            version: p.version,
            created_at: to_db(p.created_at),
            updated_at: to_db(p.updated_at),
            near_term_goal_summary: prose
                .near_term_goal_summary
                .as_ref()
                .map(|g| g.as_str().to_owned()),
            long_term_goal_summary: prose
                .long_term_goal_summary
                .as_ref()
                .map(|g| g.as_str().to_owned()),
            sources: serde_json::to_string(&p.sources)
                .unwrap_or_else(|_| unreachable!("sources serialize to JSON infallibly")),
        }
    }
}

fn prose(raw: String, what: &'static str) -> anyhow::Result<Prose> {
    Prose::new(raw).map_err(|_| invalid(what))
}

impl TryFrom<ProfileRow> for Profile {
    type Error = anyhow::Error;

    fn try_from(row: ProfileRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse(&row.id, "discovery_profile.id")?,
            user_id: parse(&row.user_id, "discovery_profile.user_id")?,
            enneagram_type: EnneagramType::new(i64::from(row.enneagram_type))
                .map_err(|_| invalid("discovery_profile.enneagram_type"))?,
            prose: ProseFields {
                love_summary: prose(row.love_summary, "discovery_profile.love_summary")?,
                strength_summary: prose(
                    row.strength_summary,
                    "discovery_profile.strength_summary",
                )?,
                mission_summary: prose(row.mission_summary, "discovery_profile.mission_summary")?,
                vocation_summary: prose(
                    row.vocation_summary,
                    "discovery_profile.vocation_summary",
                )?,
                overlap_narrative: prose(
                    row.overlap_narrative,
                    "discovery_profile.overlap_narrative",
                )?,
                near_term_goal_summary: row
                    .near_term_goal_summary
                    .map(|g| prose(g, "discovery_profile.near_term_goal_summary"))
                    .transpose()?,
                long_term_goal_summary: row
                    .long_term_goal_summary
                    .map(|g| prose(g, "discovery_profile.long_term_goal_summary"))
                    .transpose()?,
            },
            sources: serde_json::from_str::<Sources>(&row.sources)
                .map_err(|_| invalid("discovery_profile.sources"))?,
            locked: row.locked,
            affirmed_at: from_db_opt(row.affirmed_at),
            version: row.version,
            created_at: from_db(row.created_at),
            updated_at: from_db(row.updated_at),
        })
    }
}

/// Everything a change may set on an existing profile. `None` goal summaries are written as
/// NULL: clearing a goal is a change like any other.
#[derive(Debug, Clone, AsChangeset)]
#[diesel(table_name = discovery_profile)]
#[diesel(treat_none_as_null = true)]
pub(crate) struct ProfileChanges {
    pub enneagram_type: i32,
    pub love_summary: String,
    pub strength_summary: String,
    pub mission_summary: String,
    pub vocation_summary: String,
    pub overlap_narrative: String,
    pub locked: bool,
    pub affirmed_at: Option<PrimitiveDateTime>,
    pub version: i64,
    pub updated_at: PrimitiveDateTime,
    pub near_term_goal_summary: Option<String>,
    pub long_term_goal_summary: Option<String>,
    pub sources: String,
}

impl From<ProfileRow> for ProfileChanges {
    fn from(row: ProfileRow) -> Self {
        Self {
            enneagram_type: row.enneagram_type,
            love_summary: row.love_summary,
            strength_summary: row.strength_summary,
            mission_summary: row.mission_summary,
            vocation_summary: row.vocation_summary,
            overlap_narrative: row.overlap_narrative,
            locked: row.locked,
            affirmed_at: row.affirmed_at,
            version: row.version,
            updated_at: row.updated_at,
            near_term_goal_summary: row.near_term_goal_summary,
            sources: row.sources,
            long_term_goal_summary: row.long_term_goal_summary,
        }
    }
}
