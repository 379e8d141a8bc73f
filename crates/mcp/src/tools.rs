//! The five tools: their JSON input schemas (stating the contract's limits, taken from the
//! domain's constants) and the mapping of a call's arguments to one HTTP request of the
//! discovery API.
//!
//! Arguments are checked here for shape only: required, known, of the right JSON type, and the
//! check-in id a UUID (it becomes a path segment). Values (the foundation, the minute and day
//! ranges, lengths, timestamps) are left to the service, the one authority on its limits, so
//! the model sees the service's own `validation_failed` details and the two can never drift.

use domain::integration::{ExternalTaskId, Minutes, TaskLabel, Window};
use domain::pagination::PageLimit;
use domain::text::Note;
use serde_json::{Map, Value, json};

use crate::client::{ApiRequest, ToolFailure};

/// The six foundations, in the contract's order.
pub const FOUNDATIONS: [&str; 6] = domain::foundation::Foundation::KEYS;

/// The tool names, in the order `tools/list` gives them.
pub const TOOL_NAMES: [&str; 5] = [
    "get_profile",
    "get_work_patterns",
    "log_time",
    "list_checkins",
    "respond_to_checkin",
];

/// One tool as `tools/list` describes it.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// A JSON Schema object (`"type": "object"`).
    pub input_schema: Map<String, Value>,
    /// Whether the tool only reads (an annotation hint for clients).
    pub read_only: bool,
}

/// The five tools, in the order of [`TOOL_NAMES`].
pub fn specs() -> Vec<ToolSpec> {
    vec![
        get_profile_spec(),
        get_work_patterns_spec(),
        log_time_spec(),
        list_checkins_spec(),
        respond_to_checkin_spec(),
    ]
}

/// `get_profile`: reads the profile; takes no arguments.
fn get_profile_spec() -> ToolSpec {
    ToolSpec {
        name: "get_profile",
        title: "Get my profile",
        description: "The key owner's discovery profile: Enneagram type and triad, the love, \
            strength, mission and vocation summaries, the overlap narrative, the near-term and \
            long-term goal summaries (null when no goal was stated), whether it is affirmed \
            (locked) and its version. Fails with not_found when no profile exists yet.",
        input_schema: object_schema(json!({}), &[]),
        read_only: true,
    }
}

/// `get_work_patterns`: reads where logged time went over a window of days.
fn get_work_patterns_spec() -> ToolSpec {
    ToolSpec {
        name: "get_work_patterns",
        title: "Get my work patterns",
        description: "Where the key owner's logged time went over the last `days` days: total \
            minutes, minutes and share per foundation (all six, in order), the neglected \
            foundations (share below 0.05), a plain-language summary and a day-by-day table.",
        input_schema: object_schema(
            json!({
                "days": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": Window::MAX_DAYS,
                    "default": Window::DEFAULT_DAYS,
                    "description": format!(
                        "The window in days, ending now (1-{}; default {}).",
                        Window::MAX_DAYS,
                        Window::DEFAULT_DAYS
                    )
                }
            }),
            &[],
        ),
        read_only: true,
    }
}

/// `log_time`: records (or replaces) one time entry against a foundation.
fn log_time_spec() -> ToolSpec {
    ToolSpec {
        name: "log_time",
        title: "Log time against a foundation",
        description: "Records time spent on a task and the foundation it served. Idempotent \
            per external_task_id: logging the same id again replaces that entry (minutes, \
            foundation, label, time) instead of adding to it. Returns the stored mapping.",
        input_schema: object_schema(
            json!({
                "external_task_id": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": ExternalTaskId::MAX,
                    "description": format!(
                        "Your stable id for the task or time entry (1-{} characters); reuse it to correct an entry.",
                        ExternalTaskId::MAX
                    )
                },
                "foundation": {
                    "type": "string",
                    "enum": FOUNDATIONS,
                    "description": "The foundation the time served."
                },
                "minutes": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": Minutes::MAX,
                    "description": format!("Minutes spent (0-{}).", Minutes::MAX)
                },
                "occurred_at": {
                    "type": "string",
                    "format": "date-time",
                    "description": "When the work happened, RFC 3339 (e.g. 2026-11-22T10:00:00Z)."
                },
                "label": {
                    "type": "string",
                    "maxLength": TaskLabel::MAX,
                    "description": format!(
                        "An optional human-readable label for the task (at most {} characters).",
                        TaskLabel::MAX
                    )
                }
            }),
            &["external_task_id", "foundation", "minutes", "occurred_at"],
        ),
        read_only: false,
    }
}

/// `list_checkins`: pages through the coaching check-ins, newest first.
fn list_checkins_spec() -> ToolSpec {
    ToolSpec {
        name: "list_checkins",
        title: "List my check-ins",
        description: "The key owner's coaching check-ins, newest first: the message, the goals \
            it quotes, the observation of where time went, and the response if any \
            (responded_at, still_valid, response_note; revisit is true once answered \
            \"no longer valid\"). Paginated: pass next_cursor back as `before` for older \
            ones.",
        input_schema: object_schema(
            json!({
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": PageLimit::MAX,
                    "default": PageLimit::DEFAULT.get(),
                    "description": format!(
                        "At most this many check-ins (1-{}; default {}).",
                        PageLimit::MAX,
                        PageLimit::DEFAULT.get()
                    )
                },
                "before": {
                    "type": "string",
                    "description": "The next_cursor of a previous page."
                }
            }),
            &[],
        ),
        read_only: true,
    }
}

/// `respond_to_checkin`: answers one check-in.
fn respond_to_checkin_spec() -> ToolSpec {
    ToolSpec {
        name: "respond_to_checkin",
        title: "Respond to a check-in",
        description: "Answers a check-in: whether the direction it quotes still feels valid, \
            with an optional note. A check-in takes one response only (already_responded on \
            a second). Returns the check-in.",
        input_schema: object_schema(
            json!({
                "id": {
                    "type": "string",
                    "format": "uuid",
                    "description": "The check-in's id, from list_checkins."
                },
                "still_valid": {
                    "type": "boolean",
                    "description": "Whether the quoted direction still feels valid."
                },
                "note": {
                    "type": "string",
                    "maxLength": Note::MAX,
                    "description": format!(
                        "An optional note in the person's words (at most {} characters).",
                        Note::MAX
                    )
                }
            }),
            &["id", "still_valid"],
        ),
        read_only: false,
    }
}

/// `{"type": "object", "properties": .., "required": .., "additionalProperties": false}`.
fn object_schema(properties: Value, required: &[&str]) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

/// A tool call with its arguments checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    GetProfile,
    GetWorkPatterns {
        days: Option<i64>,
    },
    LogTime {
        external_task_id: String,
        foundation: String,
        minutes: i64,
        occurred_at: String,
        label: Option<String>,
    },
    ListCheckins {
        limit: Option<i64>,
        before: Option<String>,
    },
    RespondToCheckin {
        id: uuid::Uuid,
        still_valid: bool,
        note: Option<String>,
    },
}

/// Why a call cannot be made.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// No tool has this name: a protocol error, the client asked for something not listed.
    UnknownTool(String),
    /// The arguments do not fit the schema: a tool error the model can correct.
    Invalid(ToolFailure),
}

impl Call {
    /// Checks the arguments of tool `name` (absent arguments count as `{}`).
    ///
    /// # Errors
    /// [`CallError::UnknownTool`] for a name not in [`TOOL_NAMES`]; [`CallError::Invalid`]
    /// (`validation_failed`, with one detail per bad field) for a missing, unknown or wrongly
    /// typed argument.
    pub fn parse(name: &str, arguments: Option<&Map<String, Value>>) -> Result<Self, CallError> {
        let empty = Map::new();
        let mut args = Args::new(arguments.unwrap_or(&empty));
        let call = match name {
            "get_profile" => Self::GetProfile,
            "get_work_patterns" => Self::GetWorkPatterns {
                days: args.integer("days", false),
            },
            "log_time" => Self::LogTime {
                external_task_id: args.string("external_task_id", true).unwrap_or_default(),
                foundation: args.string("foundation", true).unwrap_or_default(),
                minutes: args.integer("minutes", true).unwrap_or_default(),
                occurred_at: args.string("occurred_at", true).unwrap_or_default(),
                label: args.string("label", false),
            },
            "list_checkins" => Self::ListCheckins {
                limit: args.integer("limit", false),
                before: args.string("before", false),
            },
            "respond_to_checkin" => Self::RespondToCheckin {
                id: args.uuid("id").unwrap_or_default(),
                still_valid: args.boolean("still_valid", true).unwrap_or_default(),
                note: args.string("note", false),
            },
            other => return Err(CallError::UnknownTool(other.to_owned())),
        };
        args.finish().map(|()| call).map_err(CallError::Invalid)
    }

    /// The HTTP request this call makes.
    pub fn request(&self) -> ApiRequest {
        match self {
            Self::GetProfile => ApiRequest::get(&["discovery", "profile", "me"]),
            Self::GetWorkPatterns { days } => {
                let mut request = ApiRequest::get(&["integration", "work-patterns"]);
                if let Some(days) = days {
                    request.query.push(("days".into(), days.to_string()));
                }
                request
            }
            Self::LogTime {
                external_task_id,
                foundation,
                minutes,
                occurred_at,
                label,
            } => ApiRequest::post(
                &["integration", "task-mappings"],
                json!({
                    "external_task_id": external_task_id,
                    "task_label": label,
                    "foundation": foundation,
                    "minutes": minutes,
                    "occurred_at": occurred_at,
                }),
            ),
            Self::ListCheckins { limit, before } => {
                let mut request = ApiRequest::get(&["coaching", "checkins"]);
                if let Some(limit) = limit {
                    request.query.push(("limit".into(), limit.to_string()));
                }
                if let Some(before) = before {
                    request.query.push(("before".into(), before.clone()));
                }
                request
            }
            Self::RespondToCheckin {
                id,
                still_valid,
                note,
            } => {
                let mut body = json!({ "still_valid": still_valid });
                // Only sent when given: the contract's `note` is optional, not nullable.
                if let Some(note) = note {
                    body["note"] = json!(note);
                }
                ApiRequest::post(&["coaching", "checkins", &id.to_string(), "response"], body)
            }
        }
    }
}

/// Reads arguments one by one, collecting every problem (so the model can fix all at once)
/// and noticing the arguments nobody read (unknown ones).
struct Args<'a> {
    given: &'a Map<String, Value>,
    read: Vec<&'static str>,
    problems: Vec<(String, String)>,
}

impl<'a> Args<'a> {
    fn new(given: &'a Map<String, Value>) -> Self {
        Self {
            given,
            read: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// The value of `field`, `None` when absent or `null` (a problem when `required`).
    fn value(&mut self, field: &'static str, required: bool) -> Option<&'a Value> {
        self.read.push(field);
        match self.given.get(field) {
            Some(Value::Null) | None => {
                if required {
                    self.problem(field, "is required");
                }
                None
            }
            Some(value) => Some(value),
        }
    }

    fn problem(&mut self, field: &str, message: &str) {
        self.problems.push((field.to_owned(), message.to_owned()));
    }

    fn string(&mut self, field: &'static str, required: bool) -> Option<String> {
        let value = self.value(field, required)?;
        match value.as_str() {
            Some(s) => Some(s.to_owned()),
            None => {
                self.problem(field, "must be a string");
                None
            }
        }
    }

    fn integer(&mut self, field: &'static str, required: bool) -> Option<i64> {
        let value = self.value(field, required)?;
        // `as_i64` is `None` for 1.5 and for numbers beyond i64; a whole float such as 30.0 is
        // accepted, since some clients send every number as a float.
        let whole = value.as_i64().or_else(|| {
            value
                .as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        });
        if whole.is_none() {
            self.problem(field, "must be an integer");
        }
        whole
    }

    fn boolean(&mut self, field: &'static str, required: bool) -> Option<bool> {
        let value = self.value(field, required)?;
        let boolean = value.as_bool();
        if boolean.is_none() {
            self.problem(field, "must be true or false");
        }
        boolean
    }

    fn uuid(&mut self, field: &'static str) -> Option<uuid::Uuid> {
        let text = self.string(field, true)?;
        // Checked here because it becomes a path segment of the request.
        let id = uuid::Uuid::parse_str(text.trim()).ok();
        if id.is_none() {
            self.problem(field, "must be a check-in id (a UUID)");
        }
        id
    }

    /// `Ok` when every argument was known and fine, else the `validation_failed` failure.
    fn finish(mut self) -> Result<(), ToolFailure> {
        let mut unknown: Vec<&String> = self
            .given
            .keys()
            .filter(|k| !self.read.contains(&k.as_str()))
            .collect();
        unknown.sort();
        for field in unknown {
            self.problems
                .push((field.clone(), "is not an argument of this tool".into()));
        }
        if self.problems.is_empty() {
            return Ok(());
        }
        Err(ToolFailure::validation(self.problems))
    }
}

#[cfg(test)]
mod tests {
    use reqwest::Method;

    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    fn invalid_fields(error: CallError) -> Vec<String> {
        match error {
            CallError::Invalid(failure) => {
                assert_eq!(failure.code, "validation_failed");
                failure
                    .details
                    .unwrap()
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d["field"].as_str().unwrap().to_owned())
                    .collect()
            }
            other => panic!("expected a validation failure, got {other:?}"),
        }
    }

    #[test]
    fn every_tool_has_an_object_schema_with_no_extra_properties() {
        let specs = specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
        assert_eq!(names, TOOL_NAMES);
        for spec in specs {
            assert_eq!(spec.input_schema["type"], "object", "{}", spec.name);
            assert_eq!(spec.input_schema["additionalProperties"], false);
            let properties = spec.input_schema["properties"].as_object().unwrap();
            let required = spec.input_schema.get("required").and_then(Value::as_array);
            for required in required.into_iter().flatten() {
                let required = required.as_str().unwrap();
                assert!(
                    properties.contains_key(required),
                    "{}: {required}",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn the_schemas_state_the_contracts_limits() {
        let specs = specs();
        let schema = |name: &str| {
            specs
                .iter()
                .find(|s| s.name == name)
                .unwrap()
                .input_schema
                .clone()
        };
        let log_time = schema("log_time");
        let p = &log_time["properties"];
        assert_eq!(
            p["foundation"]["enum"],
            json!([
                "love",
                "strength",
                "mission",
                "vocation",
                "short_term",
                "long_term"
            ])
        );
        assert_eq!(
            (&p["minutes"]["minimum"], &p["minutes"]["maximum"]),
            (&json!(0), &json!(1440))
        );
        assert_eq!(p["external_task_id"]["maxLength"], 200);
        assert_eq!(p["label"]["maxLength"], 500);
        assert_eq!(
            log_time["required"],
            json!(["external_task_id", "foundation", "minutes", "occurred_at"])
        );
        let days = &schema("get_work_patterns")["properties"]["days"];
        assert_eq!(
            (&days["minimum"], &days["maximum"]),
            (&json!(1), &json!(365))
        );
        assert_eq!(days["default"], 14);
        assert!(
            days["description"]
                .as_str()
                .unwrap()
                .contains("(1-365; default 14)"),
            "{days}"
        );
        let limit = &schema("list_checkins")["properties"]["limit"];
        assert_eq!(
            (&limit["minimum"], &limit["maximum"], &limit["default"]),
            (&json!(1), &json!(1000), &json!(100))
        );
        let respond = schema("respond_to_checkin");
        assert_eq!(respond["required"], json!(["id", "still_valid"]));
        assert_eq!(respond["properties"]["note"]["maxLength"], 2000);
    }

    #[test]
    fn log_time_maps_to_a_task_mapping_post_with_the_label_as_task_label() {
        let call = Call::parse(
            "log_time",
            Some(&args(json!({
                "external_task_id": "T-1",
                "foundation": "mission",
                "minutes": 45,
                "occurred_at": "2026-11-22T10:00:00Z",
                "label": "Write the report"
            }))),
        )
        .unwrap();
        let request = call.request();
        assert_eq!(request.method, Method::POST);
        assert_eq!(request.segments, ["integration", "task-mappings"]);
        assert_eq!(
            request.body,
            Some(json!({
                "external_task_id": "T-1",
                "task_label": "Write the report",
                "foundation": "mission",
                "minutes": 45,
                "occurred_at": "2026-11-22T10:00:00Z"
            }))
        );
    }

    #[test]
    fn log_time_without_a_label_sends_a_null_task_label() {
        let call = Call::parse(
            "log_time",
            Some(&args(json!({
                "external_task_id": "T-1", "foundation": "love", "minutes": 30.0,
                "occurred_at": "2026-11-22T10:00:00Z"
            }))),
        )
        .unwrap();
        let body = call.request().body.unwrap();
        assert_eq!(body["task_label"], Value::Null);
        assert_eq!(body["minutes"], 30, "a whole float is an integer");
    }

    #[test]
    fn values_are_left_to_the_service_but_types_are_checked_here() {
        // An unknown foundation and out-of-range minutes pass: the service judges values.
        let call = Call::parse(
            "log_time",
            Some(&args(json!({
                "external_task_id": "T", "foundation": "leisure", "minutes": 5000,
                "occurred_at": "yesterday"
            }))),
        );
        assert!(call.is_ok(), "{call:?}");

        let error = Call::parse(
            "log_time",
            Some(&args(json!({
                "external_task_id": 7, "foundation": "love", "minutes": "30",
                "colour": "red"
            }))),
        )
        .unwrap_err();
        assert_eq!(
            invalid_fields(error),
            ["external_task_id", "minutes", "occurred_at", "colour"]
        );
    }

    #[test]
    fn a_fractional_number_of_minutes_is_not_an_integer() {
        let error = Call::parse(
            "log_time",
            Some(&args(json!({
                "external_task_id": "T", "foundation": "love", "minutes": 1.5,
                "occurred_at": "2026-11-22T10:00:00Z"
            }))),
        )
        .unwrap_err();
        assert_eq!(invalid_fields(error), ["minutes"]);
    }

    #[test]
    fn work_patterns_send_days_only_when_given() {
        let without = Call::parse("get_work_patterns", None).unwrap().request();
        assert_eq!(without.method, Method::GET);
        assert_eq!(without.segments, ["integration", "work-patterns"]);
        assert!(without.query.is_empty());

        let with = Call::parse("get_work_patterns", Some(&args(json!({ "days": 7 }))))
            .unwrap()
            .request();
        assert_eq!(with.query, [("days".to_owned(), "7".to_owned())]);
    }

    #[test]
    fn get_profile_takes_no_arguments() {
        assert_eq!(
            Call::parse("get_profile", Some(&Map::new()))
                .unwrap()
                .request()
                .segments,
            ["discovery", "profile", "me"]
        );
        let error = Call::parse("get_profile", Some(&args(json!({ "user_id": "x" })))).unwrap_err();
        assert_eq!(invalid_fields(error), ["user_id"]);
    }

    #[test]
    fn list_checkins_passes_limit_and_cursor_as_query() {
        let request = Call::parse(
            "list_checkins",
            Some(&args(json!({ "limit": 5, "before": "abc/def" }))),
        )
        .unwrap()
        .request();
        assert_eq!(request.segments, ["coaching", "checkins"]);
        assert_eq!(
            request.query,
            [
                ("limit".to_owned(), "5".to_owned()),
                ("before".to_owned(), "abc/def".to_owned())
            ]
        );
    }

    #[test]
    fn respond_to_checkin_posts_the_response_and_omits_an_absent_note() {
        let id = "0190f5a4-7b3c-7d2e-8f00-000000000001";
        let request = Call::parse(
            "respond_to_checkin",
            Some(&args(json!({ "id": id, "still_valid": false }))),
        )
        .unwrap()
        .request();
        assert_eq!(request.method, Method::POST);
        assert_eq!(request.segments, ["coaching", "checkins", id, "response"]);
        assert_eq!(request.body, Some(json!({ "still_valid": false })));

        let with_note = Call::parse(
            "respond_to_checkin",
            Some(&args(
                json!({ "id": id, "still_valid": true, "note": "yes" }),
            )),
        )
        .unwrap()
        .request();
        assert_eq!(
            with_note.body,
            Some(json!({ "still_valid": true, "note": "yes" }))
        );
    }

    #[test]
    fn a_checkin_id_that_is_not_a_uuid_never_reaches_a_path() {
        for id in ["../../api/me/api-keys", "", "42"] {
            let error = Call::parse(
                "respond_to_checkin",
                Some(&args(json!({ "id": id, "still_valid": true }))),
            )
            .unwrap_err();
            assert_eq!(invalid_fields(error), ["id"], "{id:?}");
        }
        let error =
            Call::parse("respond_to_checkin", Some(&args(json!({ "id": null })))).unwrap_err();
        assert_eq!(invalid_fields(error), ["id", "still_valid"]);
    }

    #[test]
    fn an_unknown_tool_is_not_a_validation_failure() {
        assert_eq!(
            Call::parse("delete_everything", None).unwrap_err(),
            CallError::UnknownTool("delete_everything".into())
        );
    }
}
