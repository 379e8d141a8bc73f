//! The integration requests: a time entry (alone or in a batch) and the list and work-pattern
//! query strings.

use domain::foundation::Foundation;
use domain::integration::rules::{MAX_TAGS, TAG_MAX_CHARS};
use domain::integration::{
    ExternalTaskId, FoundationFilter, MAX_BATCH, Minutes, Tags, TagsError, TaskLabel,
    TaskMappingInput, TaskMappingQuery, Weeks, Window,
};
use serde::Deserialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::schema::{
    ArrayBuilder, KnownFormat, ObjectBuilder, OneOfBuilder, SchemaFormat, Type,
};
use utoipa::openapi::{Object, Ref, Schema};
use utoipa::{IntoParams, ToSchema};

use super::page::page;
use super::rules;
use crate::error::Invalid;
use crate::views::enum_schemas;

/// One time entry. Idempotent per `(caller, external_task_id)`: a repeat replaces the row.
/// Without a foundation (absent or `null`), the caller's first matching rule decides it, or it
/// stays unmapped.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskMappingRequest {
    #[schema(schema_with = external_task_id)]
    pub external_task_id: ExternalTaskId,
    #[serde(default)]
    #[schema(schema_with = task_label)]
    pub task_label: Option<TaskLabel>,
    #[serde(default)]
    #[schema(value_type = Option<enum_schemas::FoundationKey>)]
    pub foundation: Option<Foundation>,
    /// The tracker's tags, project or labels (default none); a tag given twice is kept once.
    #[serde(default)]
    #[schema(schema_with = tags)]
    pub tags: Vec<String>,
    #[schema(schema_with = minutes)]
    pub minutes: Minutes,
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
}

fn external_task_id() -> Object {
    rules::non_blank(ExternalTaskId::MAX)
}

fn task_label() -> Object {
    rules::text_or_null(TaskLabel::MAX)
}

fn tags() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(rules::non_blank(TAG_MAX_CHARS))
        .max_items(Some(MAX_TAGS))
}

fn minutes() -> Object {
    rules::integer(KnownFormat::Int32, 0, i64::from(Minutes::MAX))
}

impl TaskMappingRequest {
    /// `at` names the entry's place for error details: `""` alone, `"items[3]."` in a batch
    /// (called only on an error, so a valid batch formats no paths).
    ///
    /// # Errors
    /// 422 naming `external_task_id` when it is blank, or `tags` / `tags[i]`.
    pub fn into_input(self, at: impl Fn() -> String) -> Result<TaskMappingInput, Invalid> {
        let tags = Tags::new(self.tags).map_err(|e| match e {
            TagsError::TooMany => Invalid::field(format!("{}tags", at()), e),
            TagsError::Tag { index, error } => {
                Invalid::field(format!("{}tags[{index}]", at()), error)
            }
        })?;
        TaskMappingInput::new(
            self.external_task_id,
            self.task_label,
            self.foundation,
            tags,
            self.minutes,
            self.occurred_at,
        )
        .map_err(|e| Invalid::field(format!("{}external_task_id", at()), e))
    }
}

/// All or nothing: one invalid item refuses the whole batch, naming `items[k].field`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskMappingBatchRequest {
    #[schema(schema_with = batch_items)]
    pub items: Vec<BatchItem>,
}

/// One item of a batch, read only from a JSON object: serde would also read a
/// [`TaskMappingRequest`] from an array, by field order.
#[derive(Debug)]
pub struct BatchItem(TaskMappingRequest);

impl<'de> Deserialize<'de> for BatchItem {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectOnly;
        impl<'de> serde::de::Visitor<'de> for ObjectOnly {
            type Value = BatchItem;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<BatchItem, A::Error> {
                TaskMappingRequest::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(BatchItem)
            }
        }
        deserializer.deserialize_map(ObjectOnly)
    }
}

fn batch_items() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(Ref::from_schema_name("TaskMappingRequest"))
        .max_items(Some(MAX_BATCH))
}

impl TaskMappingBatchRequest {
    /// Every item as the domain takes it.
    ///
    /// # Errors
    /// 422 naming `items` when there are too many, or the first bad item's field by its index.
    pub fn into_inputs(self) -> Result<Vec<TaskMappingInput>, Invalid> {
        if self.items.len() > MAX_BATCH {
            return Err(Invalid::field(
                "items",
                format!(
                    "at most {MAX_BATCH} items per batch (got {})",
                    self.items.len()
                ),
            ));
        }
        self.items
            .into_iter()
            .enumerate()
            .map(|(index, BatchItem(item))| item.into_input(|| format!("items[{index}].")))
            .collect()
    }
}

/// `GET /integration/task-mappings?from=&to=&foundation=&limit=&before=`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskMappingListQuery {
    pub from: Option<String>,
    pub to: Option<String>,
    pub foundation: Option<String>,
    pub limit: Option<i64>,
    pub before: Option<String>,
}

impl IntoParams for TaskMappingListQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![
            rules::query_param(
                "from",
                Some("Only entries at or after this time (RFC 3339); empty means no bound."),
                time_or_empty(),
            ),
            rules::query_param(
                "to",
                Some("Only entries before this time (RFC 3339); empty means no bound."),
                time_or_empty(),
            ),
            rules::query_param(
                "foundation",
                Some(
                    "Only this foundation, or `unmapped` for the entries without one; empty means all.",
                ),
                foundation_or_empty(),
            ),
            rules::query_param("limit", None, rules::page_limit()),
            rules::query_param("before", None, rules::cursor()),
        ]
    }
}

/// An RFC 3339 time, or `""` for "not given" (as a form with an empty field sends it).
fn time_or_empty() -> Schema {
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

/// The listing's word for the entries without a foundation.
const UNMAPPED: &str = "unmapped";

/// One of the six foundation keys, `unmapped`, or `""` for all.
fn foundation_or_empty() -> Schema {
    rules::one_of_strings(
        ["", UNMAPPED]
            .into_iter()
            .chain(Foundation::ALL.iter().map(|f| f.key())),
    )
}

/// An RFC 3339 time from a query string. A `+` offset that arrived unencoded reads as a space
/// once the query is decoded; it is put back rather than refused.
fn query_time(field: &str, value: Option<&str>) -> Result<Option<OffsetDateTime>, Invalid> {
    let Some(raw) = value.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    OffsetDateTime::parse(raw, &Rfc3339)
        .or_else(|_| OffsetDateTime::parse(&raw.replace(' ', "+"), &Rfc3339))
        .map(Some)
        .map_err(|_| Invalid::field(field, "must be an RFC 3339 time, e.g. 2026-11-22T10:00:00Z"))
}

impl TaskMappingListQuery {
    /// The query as the domain takes it.
    ///
    /// # Errors
    /// 422 naming the parameter.
    pub fn into_query(self) -> Result<TaskMappingQuery, Invalid> {
        let (limit, before) = page(self.limit, self.before.as_deref())?;
        let foundation = match self.foundation.as_deref() {
            None | Some("") => None,
            Some(UNMAPPED) => Some(FoundationFilter::Unmapped),
            Some(key) => Some(FoundationFilter::Is(key.parse::<Foundation>().map_err(
                |_| {
                    Invalid::field(
                        "foundation",
                        "must be one of the six foundations or unmapped",
                    )
                },
            )?)),
        };
        Ok(TaskMappingQuery {
            from: query_time("from", self.from.as_deref())?,
            to: query_time("to", self.to.as_deref())?,
            foundation,
            limit,
            before,
        })
    }
}

/// `GET /integration/work-patterns?days=`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkPatternQuery {
    pub days: Option<i64>,
}

impl IntoParams for WorkPatternQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![rules::query_param(
            "days",
            Some("The window in days, 1-365 (default 14)."),
            rules::days(Window::MAX_DAYS),
        )]
    }
}

/// `GET /integration/work-patterns/weekly?weeks=`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeeklyQuery {
    pub weeks: Option<i64>,
}

impl IntoParams for WeeklyQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![rules::query_param(
            "weeks",
            Some("How many local weeks, 1-104 (default 12), ending with the current one."),
            rules::weeks(Weeks::MAX),
        )]
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::error::FieldError;

    fn batch(items: serde_json::Value) -> Result<Vec<TaskMappingInput>, Invalid> {
        crate::json::from_value::<TaskMappingBatchRequest>(json!({ "items": items }), "")?
            .into_inputs()
    }

    fn item(minutes: serde_json::Value) -> serde_json::Value {
        json!({"external_task_id": "t", "foundation": "love", "minutes": minutes, "occurred_at": "2026-11-22T10:00:00Z"})
    }

    #[test]
    fn a_bad_item_is_named_by_its_index() {
        let Err(Invalid(errors)) =
            batch(json!([item(json!(5)), item(json!(5)), item(json!(1_441))]))
        else {
            panic!("expected a validation error");
        };
        assert_eq!(errors[0].field, "items[2].minutes");
    }

    #[test]
    fn a_blank_external_id_is_named_with_its_index() {
        let mut blank = item(json!(5));
        blank["external_task_id"] = json!("   ");
        let Err(Invalid(errors)) = batch(json!([item(json!(1)), blank])) else {
            panic!("expected a validation error");
        };
        assert_eq!(
            errors,
            [FieldError::new(
                "items[1].external_task_id",
                "external_task_id must not be blank"
            )]
        );
    }

    #[test]
    fn an_item_sent_as_an_array_is_refused_naming_its_index() {
        let positional = json!(["t", null, "love", 5, "2026-11-22T10:00:00Z"]);
        let Err(Invalid(errors)) = batch(json!([item(json!(1)), positional])) else {
            panic!("expected a validation error");
        };
        assert_eq!(errors[0].field, "items[1]");
    }

    #[test]
    fn the_foundation_may_be_left_to_the_rules_and_tags_are_named_by_index() {
        let mut open = item(json!(5));
        open.as_object_mut().unwrap().remove("foundation");
        let mut nulled = item(json!(5));
        nulled["foundation"] = json!(null);
        nulled["tags"] = json!(["project:Website", "deep"]);
        let read = batch(json!([open, nulled])).unwrap();
        assert_eq!((read[0].foundation, read[1].foundation), (None, None));
        assert_eq!(read[1].tags.as_slice(), ["project:Website", "deep"]);

        let mut bad = item(json!(5));
        bad["tags"] = json!(["ok", " "]);
        let Err(Invalid(errors)) = batch(json!([item(json!(1)), bad])) else {
            panic!("expected a validation error");
        };
        assert_eq!(errors[0].field, "items[1].tags[1]");
        let mut many = item(json!(5));
        many["tags"] = json!((0..21).map(|n| format!("t{n}")).collect::<Vec<_>>());
        let Err(Invalid(errors)) = batch(json!([many])) else {
            panic!("expected a validation error");
        };
        assert_eq!(errors[0].field, "items[0].tags");
        let mut claimed = item(json!(5));
        claimed["mapped_by"] = json!("rule");
        assert!(
            batch(json!([claimed])).is_err(),
            "mapped_by is the server's to say"
        );
    }

    #[test]
    fn the_listing_reads_unmapped_as_its_own_filter() {
        let query = |f: &str| {
            TaskMappingListQuery {
                from: None,
                to: None,
                foundation: Some(f.to_owned()),
                limit: None,
                before: None,
            }
            .into_query()
            .map(|q| q.foundation)
        };
        assert_eq!(query("unmapped").unwrap(), Some(FoundationFilter::Unmapped));
        assert_eq!(
            query("love").unwrap(),
            Some(FoundationFilter::Is(Foundation::Love))
        );
        assert_eq!(query("").unwrap(), None);
        assert!(query("Unmapped").is_err());
    }

    #[test]
    fn query_times_accept_an_unencoded_plus_offset() {
        let at = query_time("from", Some("2026-11-22T10:00:00 01:00")).unwrap();
        assert_eq!(at.unwrap().offset().whole_hours(), 1);
        assert!(query_time("from", Some("yesterday")).is_err());
        assert_eq!(query_time("from", Some("")).unwrap(), None);
    }
}
