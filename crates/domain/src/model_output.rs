//! Strict reading of language-model output: the first JSON object in a reply, decoded into an
//! exact shape. Everything a model says is untrusted until it passes through here.

use serde::de::DeserializeOwned;

/// Why a model's reply could not be used. The reason is meant for the model (on the one retry),
/// never for a log line: it may quote the reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the reply was not usable: {reason}")]
pub struct ModelOutputError {
    pub reason: String,
}

impl ModelOutputError {
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }
}

/// Decodes the first JSON object found in `raw` (models sometimes wrap JSON in prose or code
/// fences) into `T`; missing keys and wrong types are errors.
///
/// # Errors
/// [`ModelOutputError`] when there is no JSON object or it does not have `T`'s shape.
pub fn parse_first_object<T: DeserializeOwned>(raw: &str) -> Result<T, ModelOutputError> {
    let start = raw
        .find('{')
        .ok_or_else(|| ModelOutputError::new("no JSON object found"))?;
    let mut stream = serde_json::Deserializer::from_str(&raw[start..]).into_iter::<T>();
    match stream.next() {
        Some(Ok(value)) => Ok(value),
        Some(Err(e)) => Err(ModelOutputError::new(e.to_string())),
        None => Err(ModelOutputError::new("no JSON object found")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Shape {
        a: u8,
    }

    #[test]
    fn the_first_object_is_found_inside_prose_and_fences() {
        let raw = "Sure! ```json\n{\"a\": 3}\n``` and {\"a\": 4}";
        assert_eq!(parse_first_object::<Shape>(raw), Ok(Shape { a: 3 }));
    }

    #[test]
    fn missing_objects_wrong_types_and_truncation_are_errors() {
        assert!(parse_first_object::<Shape>("no json here").is_err());
        assert!(parse_first_object::<Shape>("{\"a\": \"three\"}").is_err());
        assert!(parse_first_object::<Shape>("{\"a\": 3").is_err());
        assert!(parse_first_object::<Shape>("{}").is_err());
    }
}
