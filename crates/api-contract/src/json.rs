//! Reading JSON into a request type in the contract's order: syntax first (a [`BodyError::Syntax`],
//! 400), then shape (an [`Invalid`], 422, naming the offending field by its path). The HTTP
//! layer's extractor checks the media type and size, then calls [`parse`].

use serde::de::DeserializeOwned;

use crate::error::{FieldError, Invalid};

/// Why a body could not be read into its request type.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// Not JSON (400 `invalid_json`): the sentence says where it broke.
    #[error("{0}")]
    Syntax(String),
    /// JSON of the wrong shape (422 `validation_failed`).
    #[error(transparent)]
    Invalid(#[from] Invalid),
}

/// Syntax first (400), then shape (422, with the path of the offending field). Every body of the
/// contract is a JSON object: serde would also read a struct from an array, by field order.
///
/// An object is read in one pass, straight into `T` (a batch of 1,000 entries need not be built
/// as a tree of values first), without tracking where the reader is; only when that fails is it
/// read again to name the field, and the whole body checked for syntax, so a body that is not
/// JSON at all still answers 400 whatever field came before the break.
///
/// # Errors
/// `Syntax` when the body is not JSON; `Invalid` naming the field when it has the wrong shape.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, BodyError> {
    let starts_as_object = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{');
    if !starts_as_object {
        let value: serde_json::Value = serde_json::from_slice(bytes).map_err(syntax)?;
        if !value.is_object() {
            return Err(Invalid::field("body", "must be a JSON object").into());
        }
        return Ok(from_value(value, "")?);
    }
    if let Ok(body) = serde_json::from_slice(bytes) {
        return Ok(body);
    }
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut reader) {
        Ok(body) => {
            reader.end().map_err(syntax)?;
            Ok(body)
        }
        // serde_json calls some shape errors syntax (an enum object with two keys is
        // "expected value"), so the body is checked on its own before the error is sorted.
        Err(e) => {
            serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(syntax)?;
            Err(shape_error(&e, "").into())
        }
    }
}

fn syntax(e: serde_json::Error) -> BodyError {
    BodyError::Syntax(format!(
        "The body is not valid JSON: {}.",
        without_position(&e.to_string())
    ))
}

/// A shape error as a 422 naming the field by its path, after `prefix`.
fn shape_error<E: std::fmt::Display>(e: &serde_path_to_error::Error<E>, prefix: &str) -> Invalid {
    let path = e.path().to_string();
    let message = e.inner().to_string();
    let field = match unknown_field(&message) {
        Some(name) if path == "." => name,
        Some(name) if !path.ends_with(&name) => format!("{path}.{name}"),
        _ if path == "." && prefix.is_empty() => "body".to_owned(),
        _ if path == "." => prefix.trim_end_matches('.').to_owned(),
        _ => path,
    };
    Invalid(vec![FieldError::new(
        format!("{prefix}{field}"),
        without_position(&message),
    )])
}

/// Reads JSON already parsed into `T`; a shape error names the offending field by its path,
/// after `prefix` (e.g. `items[3].` for one item of a batch).
///
/// # Errors
/// 422 naming the field.
pub fn from_value<T: DeserializeOwned>(
    value: serde_json::Value,
    prefix: &str,
) -> Result<T, Invalid> {
    serde_path_to_error::deserialize(value).map_err(|e| shape_error(&e, prefix))
}

/// serde reports unknown and missing fields at the parent's path; its message names them:
/// "unknown field `x`, expected ...", "missing field `x`".
fn unknown_field(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("missing field `"))?;
    rest.split('`').next().map(str::to_owned)
}

/// Drops serde's " at line 1 column 7" so messages read as sentences.
#[must_use]
pub fn without_position(message: &str) -> String {
    message
        .split(" at line ")
        .next()
        .unwrap_or(message)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        email: String,
        items: Option<Vec<Item>>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        minutes: u16,
    }

    fn field_of(body: &str) -> (String, String) {
        match parse::<Body>(body.as_bytes()) {
            Err(BodyError::Invalid(Invalid(fields))) => {
                (fields[0].field.clone(), fields[0].message.clone())
            }
            other => panic!("expected 422, got {other:?}"),
        }
    }

    #[test]
    fn the_offending_field_is_named_by_its_path() {
        assert_eq!(field_of(r#"{"email": 42}"#).0, "email");
        assert_eq!(
            field_of(r#"{"email": "a", "items": [{"minutes": 5}, {"minutes": -1}]}"#).0,
            "items[1].minutes"
        );
        assert_eq!(field_of(r#"{"email": "a", "triad": "gut"}"#).0, "triad");
        assert_eq!(field_of(r#"{}"#).0, "email");
        assert_eq!(
            field_of(r#"{"email": "a", "items": [{}]}"#).0,
            "items[0].minutes"
        );
        assert_eq!(
            field_of(r#"{"email": "a", "items": [{"minutes": 1, "x": 2}]}"#).0,
            "items[0].x"
        );
        assert_eq!(field_of(r#"[]"#).0, "body");
        assert!(!field_of(r#"{"email": 42}"#).1.contains("line"));
    }

    #[test]
    fn broken_json_is_a_syntax_error_whatever_came_first() {
        for body in ["[1, 2", r#"{"email": 42"#, "", "nope", r#"{"email": "a",}"#] {
            assert!(
                matches!(parse::<Body>(body.as_bytes()), Err(BodyError::Syntax(_))),
                "{body:?}"
            );
        }
    }

    #[test]
    fn deeply_nested_json_is_refused_as_invalid() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(matches!(
            parse::<Body>(deep.as_bytes()),
            Err(BodyError::Syntax(_))
        ));
    }
}
