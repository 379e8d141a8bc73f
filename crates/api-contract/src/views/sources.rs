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
pub enum SourceView<'a> {
    /// A span of the stored answer of `step`.
    Step {
        #[schema(minimum = 1, maximum = 7)]
        step: u8,
        #[schema(min_length = 1, max_length = 300)]
        quote: &'a str,
    },
    /// A span of the person's reflection turn `reflection_message_id`.
    Reflection {
        #[schema(value_type = uuid::Uuid)]
        reflection_message_id: ReflectionMessageId,
        #[schema(min_length = 1, max_length = 300)]
        quote: &'a str,
    },
}

impl<'a> From<&'a Source> for SourceView<'a> {
    fn from(source: &'a Source) -> Self {
        let quote = source.quote.as_str();
        match source.origin {
            SourceOrigin::Step(step) => Self::Step {
                step: step.get(),
                quote,
            },
            SourceOrigin::Reflection(id) => Self::Reflection {
                reflection_message_id: id,
                quote,
            },
        }
    }
}

/// The sources of every editable field (`[]` for a field the person wrote by hand).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Sources)]
pub struct SourcesView<'a> {
    love_summary: Vec<SourceView<'a>>,
    strength_summary: Vec<SourceView<'a>>,
    mission_summary: Vec<SourceView<'a>>,
    vocation_summary: Vec<SourceView<'a>>,
    overlap_narrative: Vec<SourceView<'a>>,
    near_term_goal_summary: Vec<SourceView<'a>>,
    long_term_goal_summary: Vec<SourceView<'a>>,
}

impl<'a> From<&'a Sources> for SourcesView<'a> {
    fn from(sources: &'a Sources) -> Self {
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
