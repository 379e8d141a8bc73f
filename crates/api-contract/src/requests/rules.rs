//! The domain's rules for what the service accepts, as JSON Schema: the text patterns, and
//! schema builders that take every limit from the domain's constants. The routes' request types
//! point their fields here (`schema_with`), so the document states exactly what is refused.

use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, SchemaType, Type};
use utoipa::openapi::{Object, RefOr, Required, Schema};

/// The characters `domain::text` refuses, as a regex class body: C0 controls but tab, line
/// feed and carriage return. A macro so the patterns below can be `concat!`ed constants.
macro_rules! refused_chars {
    () => {
        "\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F"
    };
}

/// White space as the server reads it (Rust's `char::is_whitespace`, which `trim` uses), spelled
/// out: the regex flavour of JSON Schema (ECMA-262) reads `\s` otherwise (it takes U+FEFF and
/// leaves U+0085 out), so a document saying `\s` would refuse and allow the wrong characters.
macro_rules! white_space {
    () => {
        "\\u0009-\\u000D\\u0020\\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000"
    };
}

/// Text as `domain::text::Text` takes it: none of the refused characters.
pub const TEXT: &str = concat!("^[^", refused_chars!(), "]*$");
/// As [`TEXT`], and not blank: at least one character that is not white space.
pub const NON_BLANK: &str = concat!(
    "^[^",
    refused_chars!(),
    "]*[^",
    refused_chars!(),
    white_space!(),
    "][^",
    refused_chars!(),
    "]*$"
);
/// What `domain::account::Email` refuses in an address besides white space: every control
/// character (Rust's `char::is_control`, C0, DEL and C1) and the mailbox syntax of
/// `Email::MAILBOX_SYNTAX`, as a regex class body.
macro_rules! email_refused {
    () => {
        "\\u0000-\\u001F\\u007F-\\u009F<>()\",;:\\[\\]\\\\"
    };
}

/// An e-mail address as `domain::account::Email` takes it: one `@` between non-empty parts, no
/// white space, control character or mailbox syntax (a bare address, not `Name <a@b>`).
pub const EMAIL: &str = concat!(
    "^[^@",
    white_space!(),
    email_refused!(),
    "]+@[^@",
    white_space!(),
    email_refused!(),
    "]+$"
);
/// `If-Match`: the profile's version, quoted, weak or bare, or `*`.
pub const IF_MATCH: &str = r#"^(\*|(W/)?"[0-9]{1,18}"|[0-9]{1,18})$"#;
/// A page cursor as `domain::pagination::Cursor` prints it, `<unix microseconds>_<uuid>`;
/// empty means none.
pub const CURSOR: &str = "^$|^-?[0-9]{1,17}_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

fn string(max_chars: usize, pattern: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .max_length(Some(max_chars))
        .pattern(Some(pattern))
}

/// Text of at most `max_chars` characters, blank allowed.
#[must_use]
pub fn text(max_chars: usize) -> Object {
    string(max_chars, TEXT).build()
}

/// As [`text`], or `null`.
#[must_use]
pub fn text_or_null(max_chars: usize) -> Object {
    string(max_chars, TEXT)
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .build()
}

/// Text of 1 to `max_chars` characters that is not blank.
#[must_use]
pub fn non_blank(max_chars: usize) -> Object {
    string(max_chars, NON_BLANK).min_length(Some(1)).build()
}

/// A whole number in `min..=max`, in the JSON Schema format of the Rust type it is read as.
#[must_use]
pub fn integer(format: KnownFormat, min: i64, max: i64) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .format(Some(SchemaFormat::KnownFormat(format)))
        .minimum(Some(min))
        .maximum(Some(max))
        .build()
}

/// As [`integer`], or `null`.
#[must_use]
pub fn integer_or_null(format: KnownFormat, min: i64, max: i64) -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
        .format(Some(SchemaFormat::KnownFormat(format)))
        .minimum(Some(min))
        .maximum(Some(max))
        .build()
}

/// A number in `min..=max`.
#[must_use]
pub fn number(min: f64, max: f64) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Number)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Double)))
        .minimum(Some(min))
        .maximum(Some(max))
        .build()
}

/// A page's `?limit=`: 1 to `PageLimit::MAX`.
#[must_use]
pub fn page_limit() -> Object {
    integer(
        KnownFormat::Int64,
        1,
        i64::from(domain::pagination::PageLimit::MAX),
    )
}

/// A page's `?before=`: a cursor or empty.
#[must_use]
pub fn cursor() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(CURSOR))
        .build()
}

/// A window of `1..=max_days` days.
#[must_use]
pub fn days(max_days: u16) -> Object {
    integer(KnownFormat::Int64, 1, i64::from(max_days))
}

/// A count of `1..=max_weeks` weeks.
#[must_use]
pub fn weeks(max_weeks: u8) -> Object {
    integer(KnownFormat::Int64, 1, i64::from(max_weeks))
}

/// `schema`, or `""` for "not given" (as a form with an empty field sends it).
#[must_use]
pub fn or_empty(schema: impl Into<RefOr<Schema>>) -> Schema {
    let empty = ObjectBuilder::new()
        .schema_type(Type::String)
        .max_length(Some(0));
    Schema::OneOf(
        utoipa::openapi::schema::OneOfBuilder::new()
            .item(schema)
            .item(empty)
            .build(),
    )
}

/// One of `values`, as a string enum (for query strings, where `""` may mean "any").
#[must_use]
pub fn one_of_strings<'a>(values: impl IntoIterator<Item = &'a str>) -> Schema {
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(values))
            .build(),
    )
}

/// An optional query-string parameter. Query and path parameters are declared by hand
/// (`impl IntoParams`) rather than derived, because the derive drops a parameter's description
/// and `required` when its schema comes from a function, as ours do.
#[must_use]
pub fn query_param(
    name: &str,
    description: Option<&str>,
    schema: impl Into<RefOr<Schema>>,
) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .description(description)
        .required(Required::False)
        .schema(Some(schema))
        .build()
}

/// A path parameter (always required).
#[must_use]
pub fn path_param(name: &str, description: &str, schema: impl Into<RefOr<Schema>>) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .description(Some(description))
        .required(Required::True)
        .schema(Some(schema))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads a class body (`\\uXXXX` and `\\uXXXX-\\uXXXX` items) back into the code points it
    /// names.
    fn code_points(class: &str) -> Vec<u32> {
        let class = class.replace("-\\u", "-").replace("\\u", " ");
        let mut refused = Vec::new();
        for item in class.split_whitespace() {
            let hex = |h: &str| u32::from_str_radix(h, 16).unwrap();
            match item.split_once('-') {
                Some((from, to)) => refused.extend(hex(from)..=hex(to)),
                None => refused.push(hex(item)),
            }
        }
        refused
    }

    #[test]
    fn the_pattern_refuses_exactly_what_the_domain_refuses() {
        let refused = code_points(refused_chars!());
        for code in 0..0x300_u32 {
            let c = char::from_u32(code).unwrap();
            assert_eq!(
                domain::text::is_allowed_char(c),
                !refused.contains(&code),
                "U+{code:04X}"
            );
        }
    }

    #[test]
    fn the_email_pattern_accepts_exactly_what_the_domain_accepts() {
        let schema = serde_json::json!({"type": "string", "pattern": EMAIL});
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        let codes = (0..0x3100_u32).chain([0xFEFF, 0x1F600]);
        for c in codes.filter_map(char::from_u32) {
            for address in [format!("a{c}b@example.org"), format!("ab@exa{c}mple.org")] {
                let domain_says = domain::account::Email::new(&address).is_ok();
                let document_says = validator.is_valid(&serde_json::json!(address));
                assert_eq!(
                    document_says,
                    domain_says,
                    "{address:?} (U+{:04X})",
                    u32::from(c)
                );
            }
        }
        for address in [
            "x<victim@evil.example>",
            "a@b@c",
            "@b",
            "a@",
            "first.last+tag@sub.example.org",
        ] {
            assert_eq!(
                validator.is_valid(&serde_json::json!(address)),
                domain::account::Email::new(address).is_ok(),
                "{address}"
            );
        }
    }

    #[test]
    fn white_space_is_exactly_what_the_server_trims() {
        let spelled = code_points(white_space!());
        for c in (0..=0x10FFFF_u32).filter_map(char::from_u32) {
            assert_eq!(c.is_whitespace(), spelled.contains(&u32::from(c)), "{c:?}");
        }
    }

    #[test]
    fn the_patterns_spell_the_classes_out() {
        assert_eq!(TEXT, "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$");
        for pattern in [NON_BLANK, EMAIL] {
            assert!(!pattern.contains("\\s"), "{pattern}");
            assert!(pattern.contains(white_space!()), "{pattern}");
        }
    }
}
