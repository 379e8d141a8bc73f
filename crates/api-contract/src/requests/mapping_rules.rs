//! The mapping-rule requests: a rule (`POST` and `PUT /integration/rules`) and the unmapped
//! view's query string.

use std::num::NonZeroU32;

use domain::foundation::Foundation;
use domain::integration::rules::PATTERN_MAX_CHARS;
use domain::integration::{MatchKind, NewRule, Pattern, RuleMatch, Window};
use domain::number::WholeNumber;
use serde::Deserialize;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::schema::{
    AdditionalProperties, KnownFormat, ObjectBuilder, OneOfBuilder, Type,
};
use utoipa::openapi::{Object, Schema};
use utoipa::{IntoParams, ToSchema};

use super::rules;
use crate::error::Invalid;
use crate::views::enum_schemas;

/// A rule: its condition (exactly one key), the foundation it gives, and where it goes (1 is
/// first; absent appends a new rule and keeps a replaced one in place; past the end is the end).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleRequest {
    #[serde(rename = "match")]
    #[schema(schema_with = rule_match)]
    pub matcher: MatchRequest,
    #[schema(value_type = enum_schemas::FoundationKey)]
    pub foundation: Foundation,
    #[serde(default)]
    #[schema(schema_with = position)]
    pub position: Option<WholeNumber>,
}

/// `{"label_contains": "..."}` and the three others: serde reads exactly one key.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchRequest {
    LabelContains(String),
    LabelEquals(String),
    Tag(String),
    ExternalTaskIdPrefix(String),
}

/// One object per kind, each with its one required key (the views answer the same shape).
#[must_use]
pub fn rule_match() -> Schema {
    let mut one_of = OneOfBuilder::new();
    for kind in MatchKind::ALL {
        one_of = one_of.item(
            ObjectBuilder::new()
                .schema_type(Type::Object)
                .property(kind.key(), rules::non_blank(PATTERN_MAX_CHARS))
                .required(kind.key())
                .additional_properties(Some(AdditionalProperties::FreeForm(false))),
        );
    }
    Schema::OneOf(one_of.build())
}

/// `null` reads as absent.
fn position() -> Object {
    rules::integer_or_null(KnownFormat::Int64, 1, i64::from(u32::MAX))
}

impl RuleRequest {
    /// The rule as the domain takes it.
    ///
    /// # Errors
    /// 422 naming `match.<kind>` for a blank, too long or control-character pattern, and
    /// `position` outside 1-4294967295.
    pub fn into_rule(self) -> Result<NewRule, Invalid> {
        let (kind, pattern) = match self.matcher {
            MatchRequest::LabelContains(p) => (MatchKind::LabelContains, p),
            MatchRequest::LabelEquals(p) => (MatchKind::LabelEquals, p),
            MatchRequest::Tag(p) => (MatchKind::Tag, p),
            MatchRequest::ExternalTaskIdPrefix(p) => (MatchKind::ExternalTaskIdPrefix, p),
        };
        let pattern = Pattern::non_blank(pattern)
            .map_err(|e| Invalid::field(format!("match.{}", kind.key()), e))?;
        let position = self
            .position
            .map(|WholeNumber(n)| {
                u32::try_from(n)
                    .ok()
                    .and_then(NonZeroU32::new)
                    .ok_or_else(|| Invalid::field("position", "must be 1 or more"))
            })
            .transpose()?;
        Ok(NewRule {
            matcher: RuleMatch::new(kind, pattern),
            foundation: self.foundation,
            position,
        })
    }
}

/// `GET /integration/unmapped?days=&limit=`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnmappedQuery {
    pub days: Option<i64>,
    pub limit: Option<i64>,
}

impl IntoParams for UnmappedQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![
            rules::query_param(
                "days",
                Some("The window in days, 1-365 (default 14)."),
                rules::days(Window::MAX_DAYS),
            ),
            rules::query_param(
                "limit",
                Some("At most this many groups, the largest (default 100)."),
                rules::page_limit(),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(body: serde_json::Value) -> Result<NewRule, Invalid> {
        crate::json::from_value::<RuleRequest>(body, "")?.into_rule()
    }

    fn field(result: Result<NewRule, Invalid>) -> String {
        match result {
            Err(Invalid(errors)) => errors[0].field.clone(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn each_kind_reads_from_its_one_key() {
        for kind in MatchKind::ALL {
            let rule = read(json!({"match": {kind.key(): "Deep work"}, "foundation": "vocation"}))
                .unwrap();
            assert_eq!(rule.matcher.kind(), kind);
            assert_eq!(rule.matcher.pattern(), "Deep work");
            assert_eq!(rule.position, None);
        }
        let placed = read(json!({"match": {"tag": "x"}, "foundation": "love", "position": 2.0}));
        assert_eq!(placed.unwrap().position, NonZeroU32::new(2));
        let nulled = read(json!({"match": {"tag": "x"}, "foundation": "love", "position": null}));
        assert_eq!(
            nulled.unwrap().position,
            None,
            "null is absent, as the document says"
        );
    }

    #[test]
    fn a_bad_rule_is_refused_naming_the_field() {
        let cases = [
            (json!({"match": {}, "foundation": "love"}), "match"),
            (
                json!({"match": {"tag": "a", "label_equals": "b"}, "foundation": "love"}),
                "match",
            ),
            (
                json!({"match": {"regex": ".*"}, "foundation": "love"}),
                "match",
            ),
            (
                json!({"match": {"tag": "  "}, "foundation": "love"}),
                "match.tag",
            ),
            (
                json!({"match": {"label_contains": "x".repeat(501)}, "foundation": "love"}),
                "match.label_contains",
            ),
            (
                json!({"match": {"tag": "x"}, "foundation": "joy"}),
                "foundation",
            ),
            (json!({"match": {"tag": "x"}}), "foundation"),
            (
                json!({"match": {"tag": "x"}, "foundation": "love", "position": 0}),
                "position",
            ),
            (
                json!({"match": {"tag": "x"}, "foundation": "love", "position": 1.5}),
                "position",
            ),
            (
                json!({"match": {"tag": "x"}, "foundation": "love", "id": "x"}),
                "id",
            ),
        ];
        for (body, expected) in cases {
            assert_eq!(field(read(body.clone())), expected, "{body}");
        }
    }
}
