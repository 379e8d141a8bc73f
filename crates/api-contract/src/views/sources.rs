//! Provenance in responses: for each editable field, the person's own words it rests on.

use domain::ids::ReflectionMessageId;
use domain::profile::{EditableField, Source, SourceOrigin, Sources};
use serde::Serialize;
use utoipa::ToSchema;

/// A verified span of the person's words: of a step's answer, or of one of their reflection
/// turns.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
#[schema(as = Source)]
pub enum SourceView {
    /// A span of the stored answer of `step`.
    Step {
        #[schema(minimum = 1, maximum = 7)]
        step: u8,
        #[schema(min_length = 1, max_length = 300)]
        quote: String,
    },
    /// A span of the person's reflection turn `reflection_message_id`.
    Reflection {
        #[schema(value_type = uuid::Uuid)]
        reflection_message_id: ReflectionMessageId,
        #[schema(min_length = 1, max_length = 300)]
        quote: String,
    },
}

impl From<&Source> for SourceView {
    fn from(source: &Source) -> Self {
        let quote = source.quote.as_str();
        match source.origin {
            SourceOrigin::Step(step) => Self::Step {
                step: step.get(),
                quote: quote.to_owned(),
            },
            SourceOrigin::Reflection(id) => Self::Reflection {
                reflection_message_id: id,
                quote: quote.to_owned(),
            },
        }
    }
}

/// The sources of every editable field (`[]` for a field the person wrote by hand).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Sources)]
pub struct SourcesView {
    love_summary: Vec<SourceView>,
    strength_summary: Vec<SourceView>,
    mission_summary: Vec<SourceView>,
    vocation_summary: Vec<SourceView>,
    overlap_narrative: Vec<SourceView>,
    near_term_goal_summary: Vec<SourceView>,
    long_term_goal_summary: Vec<SourceView>,
}

impl From<&Sources> for SourcesView {
    fn from(sources: &Sources) -> Self {
        let of = |field| sources.get(field).iter().map(SourceView::from).collect();
        Self {
            love_summary: of(EditableField::LoveSummary),
            strength_summary: of(EditableField::StrengthSummary),
            mission_summary: of(EditableField::MissionSummary),
            vocation_summary: of(EditableField::VocationSummary),
            overlap_narrative: of(EditableField::OverlapNarrative),
            near_term_goal_summary: of(EditableField::NearTermGoalSummary),
            long_term_goal_summary: of(EditableField::LongTermGoalSummary),
        }
    }
}
