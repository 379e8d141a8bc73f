//! The profile requests: an edit of the prose fields, the revision a restore names, and a
//! reflection turn (as a body, or as the preview's query string).

use std::borrow::Cow;

use domain::profile::{EditableField, ProfileEdit};
use domain::reflection::ReflectionTurn;
use domain::text::{MessageText, Prose};
use serde::{Deserialize, Deserializer};
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn, ParameterStyle};
use utoipa::openapi::schema::{
    AdditionalProperties, KnownFormat, ObjectBuilder, OneOfBuilder, Schema, Type,
};
use utoipa::openapi::{Object, Ref, RefOr, Required};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use super::rules;
use crate::error::{Invalid, NotFound};

/// Any subset of the seven editable fields; any other field is 422. The two goal summaries may
/// be null or blank (no such goal); the others may be neither null nor blank.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileEditRequest {
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = non_blank_prose)]
    pub love_summary: Option<Prose>,
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = non_blank_prose)]
    pub strength_summary: Option<Prose>,
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = non_blank_prose)]
    pub mission_summary: Option<Prose>,
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = non_blank_prose)]
    pub vocation_summary: Option<Prose>,
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = non_blank_prose)]
    pub overlap_narrative: Option<Prose>,
    /// `Some(None)`: sent as null, "I have no such goal"; `None`: not sent.
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = prose_or_null)]
    pub near_term_goal_summary: Option<Option<Prose>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = prose_or_null)]
    pub long_term_goal_summary: Option<Option<Prose>>,
}

/// A field that was sent: `null` is read by `T` (refused unless `T` is an `Option`), unlike
/// serde's default, which would read it as "not sent".
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

fn non_blank_prose() -> Object {
    rules::non_blank(Prose::MAX)
}

/// A goal: text (blank reads as null), or null.
fn prose_or_null() -> Object {
    rules::text_or_null(Prose::MAX)
}

impl ProfileEditRequest {
    /// The changes, each field at most once.
    ///
    /// # Errors
    /// 422 naming the field when the domain refuses the edit (a blank Ikigai or overlap field).
    pub fn into_edit(self) -> Result<ProfileEdit, Invalid> {
        use EditableField as F;
        let required = [
            (F::LoveSummary, self.love_summary),
            (F::StrengthSummary, self.strength_summary),
            (F::MissionSummary, self.mission_summary),
            (F::VocationSummary, self.vocation_summary),
            (F::OverlapNarrative, self.overlap_narrative),
        ]
        .into_iter()
        .filter_map(|(field, value)| value.map(|v| (field, Some(v))));
        let goals = [
            (F::NearTermGoalSummary, self.near_term_goal_summary),
            (F::LongTermGoalSummary, self.long_term_goal_summary),
        ]
        .into_iter()
        .filter_map(|(field, value)| value.map(|v| (field, v)));
        ProfileEdit::new(required.chain(goals)).map_err(|e| Invalid::field(e.field().name(), e))
    }
}

/// The optional `If-Match: "<version>"` header of a change to the profile (read by
/// `routes::profile::if_match`).
#[derive(Debug)]
pub struct IfMatchHeader;

impl IntoParams for IfMatchHeader {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let version = ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(rules::IF_MATCH));
        vec![
            ParameterBuilder::new()
                .name("If-Match")
                .parameter_in(ParameterIn::Header)
                .description(Some(
                    "The version read, quoted, e.g. `\"3\"`: refuse the change if the profile \
                     changed since.",
                ))
                .required(Required::False)
                .schema(Some(version))
                .build(),
        ]
    }
}

/// The `{number}` of `/discovery/profile/me/revisions/{number}/restore`, read as text: anything
/// but a revision number of the caller's (`0`, `-1`, `abc`, one too many) names no revision and
/// is a 404, as an id that cannot exist is.
#[derive(Debug, Deserialize)]
pub struct RevisionNumberPath {
    pub number: String,
}

impl RevisionNumberPath {
    /// The number, when it can name a revision (a whole number from 1).
    ///
    /// # Errors
    /// 404 otherwise.
    pub fn number(&self) -> Result<u32, NotFound> {
        self.number
            .parse::<u32>()
            .ok()
            .filter(|n| *n >= 1)
            .ok_or(NotFound)
    }
}

impl IntoParams for RevisionNumberPath {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let numbers = rules::integer(KnownFormat::Int32, 1, i64::from(i32::MAX));
        vec![rules::path_param(
            "number",
            "The revision's number, as `GET /discovery/profile/me/revisions` lists it.",
            numbers,
        )]
    }
}

/// A reflection turn as the person sends it: exactly one of `{"opener": true}` or
/// `{"message": "..."}`. Read as one struct so a refusal names the field; documented as the
/// two shapes it accepts (see the `ToSchema` impl below).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReflectRequest {
    /// `null` is refused (the document allows only `true`), not read as "not sent".
    #[serde(default, deserialize_with = "present")]
    pub opener: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    pub message: Option<String>,
}

/// The preview's query string: the same two shapes, as one object exploded into the query
/// (`?opener=true` or `?message=...`), so the document states that exactly one is sent.
impl IntoParams for ReflectRequest {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![
            ParameterBuilder::new()
                .name("turn")
                .parameter_in(ParameterIn::Query)
                .description(Some(
                    "Exactly one of `opener=true` or `message=...`, as in the reflect body.",
                ))
                .required(Required::True)
                .style(Some(ParameterStyle::Form))
                .explode(Some(true))
                .schema(Some(Ref::from_schema_name(Self::name())))
                .build(),
        ]
    }
}

fn message() -> Object {
    rules::non_blank(MessageText::MAX)
}

impl ReflectRequest {
    /// Exactly one of `opener: true` and a non-blank `message` of at most 4,000 characters.
    ///
    /// # Errors
    /// 422 naming the field.
    pub fn turn(self) -> Result<ReflectionTurn, Invalid> {
        match (self.opener, self.message) {
            (Some(true), None) => Ok(ReflectionTurn::Opener),
            (None, Some(message)) => MessageText::non_blank(message)
                .map(ReflectionTurn::Message)
                .map_err(|e| Invalid::field("message", e)),
            (Some(false), None) => Err(Invalid::field(
                "opener",
                "must be true (or send a message instead)",
            )),
            // Named after the field a person most likely meant to send.
            _ => Err(Invalid::field(
                "message",
                "send exactly one of opener (true) or message",
            )),
        }
    }
}

/// `{"opener": true}`: the coach's opening turn.
#[derive(Debug)]
pub struct ReflectOpener;

impl PartialSchema for ReflectOpener {
    fn schema() -> RefOr<Schema> {
        let only_true = ObjectBuilder::new()
            .schema_type(Type::Boolean)
            .enum_values(Some([true]));
        closed_object("opener", only_true.build()).into()
    }
}

impl ToSchema for ReflectOpener {}

/// `{"message": "..."}`: the person's turn.
#[derive(Debug)]
pub struct ReflectMessage;

impl PartialSchema for ReflectMessage {
    fn schema() -> RefOr<Schema> {
        closed_object("message", message()).into()
    }
}

impl ToSchema for ReflectMessage {}

/// An object of exactly one required property.
fn closed_object(name: &str, property: Object) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property(name, property)
        .required(name)
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .build()
}

impl PartialSchema for ReflectRequest {
    fn schema() -> RefOr<Schema> {
        let one_of = OneOfBuilder::new()
            .item(Ref::from_schema_name(ReflectOpener::name()))
            .item(Ref::from_schema_name(ReflectMessage::name()))
            .description(Some(
                "A reflection turn: exactly one of `{\"opener\": true}` or `{\"message\": \"...\"}`.",
            ));
        Schema::OneOf(one_of.build()).into()
    }
}

impl ToSchema for ReflectRequest {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ReflectRequest")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((ReflectOpener::name().into(), ReflectOpener::schema()));
        schemas.push((ReflectMessage::name().into(), ReflectMessage::schema()));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn edit(body: serde_json::Value) -> Result<ProfileEdit, Invalid> {
        crate::json::from_value::<ProfileEditRequest>(body, "")?.into_edit()
    }

    fn refused_field(body: serde_json::Value) -> String {
        match edit(body) {
            Err(Invalid(errors)) => errors[0].field.clone(),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn an_edit_names_the_field_it_refuses() {
        assert_eq!(refused_field(json!({"triad": "gut"})), "triad");
        assert_eq!(refused_field(json!({"love_summary": 3})), "love_summary");
        assert_eq!(
            refused_field(json!({"mission_summary": null})),
            "mission_summary"
        );
        assert_eq!(
            refused_field(json!({"vocation_summary": "x".repeat(4_001)})),
            "vocation_summary"
        );
    }

    #[test]
    fn a_blank_ikigai_or_overlap_field_is_refused_naming_it() {
        let never_blank = EditableField::ALL.into_iter().filter(|f| !f.is_nullable());
        for field in never_blank.map(EditableField::name) {
            for blank in ["", "   ", "\n\t"] {
                assert_eq!(
                    refused_field(json!({"love_summary": "Soup.", field: blank})),
                    field,
                    "{field} = {blank:?}"
                );
            }
        }
    }

    #[test]
    fn a_blank_goal_means_no_goal() {
        let changes: Vec<_> =
            edit(json!({"near_term_goal_summary": " ", "long_term_goal_summary": ""}))
                .unwrap()
                .changes()
                .map(|(field, value)| (field, value.is_none()))
                .collect();
        assert_eq!(
            changes,
            [
                (EditableField::NearTermGoalSummary, true),
                (EditableField::LongTermGoalSummary, true),
            ]
        );
    }

    #[test]
    fn a_revision_number_is_a_whole_number_from_one_or_names_nothing() {
        let number = |n: &str| {
            RevisionNumberPath {
                number: n.to_owned(),
            }
            .number()
        };
        assert_eq!(number("1").unwrap(), 1);
        assert_eq!(number("42").unwrap(), 42);
        for bad in ["0", "-1", "abc", "1.5", "", "99999999999"] {
            assert!(
                matches!(number(bad), Err(NotFound)),
                "{bad:?} names no revision"
            );
        }
    }

    #[test]
    fn a_goal_may_be_cleared_with_null_and_absent_fields_stay_unchanged() {
        let changes: Vec<_> =
            edit(json!({"near_term_goal_summary": null, "love_summary": "Soup."}))
                .unwrap()
                .changes()
                .map(|(field, value)| (field, value.as_ref().map(|v| v.as_str().to_owned())))
                .collect();
        assert_eq!(
            changes,
            [
                (EditableField::LoveSummary, Some("Soup.".to_owned())),
                (EditableField::NearTermGoalSummary, None),
            ]
        );
    }

    #[test]
    fn a_null_opener_or_message_is_refused_not_read_as_absent() {
        for body in [
            json!({"opener": null, "message": "hi"}),
            json!({"opener": true, "message": null}),
        ] {
            assert!(
                crate::json::from_value::<ReflectRequest>(body.clone(), "").is_err(),
                "{body}"
            );
        }
        let message = crate::json::from_value::<ReflectRequest>(json!({"message": "hi"}), "");
        assert!(message.unwrap().turn().is_ok());
    }

    #[test]
    fn exactly_one_of_opener_and_message() {
        let body = |opener, message: Option<&str>| ReflectRequest {
            opener,
            message: message.map(str::to_owned),
        };
        assert_eq!(
            body(Some(true), None).turn().unwrap(),
            ReflectionTurn::Opener
        );
        assert!(matches!(
            body(None, Some("Actually, I teach")).turn().unwrap(),
            ReflectionTurn::Message(_)
        ));
        assert!(body(Some(true), Some("hi")).turn().is_err());
        assert!(body(None, None).turn().is_err());
        assert!(body(Some(false), None).turn().is_err());
        assert!(body(None, Some("  ")).turn().is_err());
        assert!(body(None, Some(&"x".repeat(4_001))).turn().is_err());
    }
}
