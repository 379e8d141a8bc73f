//! The API reference at `/docs`: the OpenAPI document (the value `/openapi.json` serialises) read
//! into what `web/pages/docs.html` shows, once at start-up. The document is read as the JSON it
//! is served as, so the page shows what a client reads, `$ref`s resolved to the schemas'
//! anchors. Types are given as parts (plain text, code, a link to a schema) so that the template
//! escapes every text itself.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::openapi::OpenApi;

/// The methods of a path item, in the order the page lists them.
const METHODS: [&str; 8] = [
    "get", "put", "post", "patch", "delete", "head", "options", "trace",
];
/// Where a `$ref` to a component schema points.
const SCHEMA_REF: &str = "#/components/schemas/";
/// How deep a type is spelt out (`array of array of ...`) before it is called what it is.
const DEPTH: usize = 4;

/// Everything the reference page shows.
#[derive(Debug, Serialize)]
pub struct Reference {
    title: String,
    version: String,
    description: String,
    schemes: Vec<Scheme>,
    tags: Vec<Tag>,
    schemas: Vec<Schema>,
}

/// A way to be signed in (`components.securitySchemes`).
#[derive(Debug, Serialize)]
struct Scheme {
    name: String,
    anchor: String,
    /// "API key in the header `X-API-Key`", "HTTP bearer (JWT)".
    kind: String,
    description: String,
}

/// The operations of one tag, in the document's order of tags.
#[derive(Debug, Serialize)]
struct Tag {
    name: String,
    anchor: String,
    description: String,
    operations: Vec<Operation>,
}

#[derive(Debug, Serialize)]
struct Operation {
    method: String,
    path: String,
    anchor: String,
    summary: String,
    description: String,
    deprecated: bool,
    /// Each is enough by itself; none: anyone may call it, signed in or not.
    callers: Vec<Caller>,
    parameters: Vec<Field>,
    body: Option<Body>,
    responses: Vec<Answer>,
}

/// One way to be let in: the schemes it needs together, each with the scopes it must carry.
#[derive(Debug, Serialize)]
struct Caller {
    schemes: Vec<SchemeUse>,
}

#[derive(Debug, Serialize)]
struct SchemeUse {
    name: String,
    anchor: String,
    scopes: Vec<String>,
}

/// A parameter or a property.
#[derive(Debug, Serialize)]
struct Field {
    name: String,
    /// `path`, `query`, `header`, `cookie`; empty for a property.
    location: String,
    required: bool,
    kind: Vec<Part>,
    description: String,
}

#[derive(Debug, Serialize)]
struct Body {
    content_type: String,
    required: bool,
    description: String,
    kind: Vec<Part>,
    /// The schema's own properties, when it has them.
    properties: Vec<Field>,
}

#[derive(Debug, Serialize)]
struct Answer {
    status: String,
    description: String,
    content_type: String,
    kind: Vec<Part>,
}

#[derive(Debug, Serialize)]
struct Schema {
    name: String,
    anchor: String,
    description: String,
    /// Its type, with a closed set's values.
    kind: Vec<Part>,
    properties: Vec<Field>,
}

/// A piece of a type as the page writes it: text, code, or a link to a schema's anchor.
#[derive(Debug, Serialize, PartialEq, Eq)]
struct Part {
    text: String,
    code: bool,
    anchor: Option<String>,
}

impl Part {
    fn text(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            code: false,
            anchor: None,
        }
    }

    fn code(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            code: true,
            anchor: None,
        }
    }

    fn schema(name: &str) -> Self {
        Self {
            text: name.to_owned(),
            code: true,
            anchor: Some(schema_anchor(name)),
        }
    }
}

impl Reference {
    /// Reads `document` as `/openapi.json` serves it.
    #[must_use]
    pub fn of(document: &OpenApi) -> Self {
        let doc = serde_json::to_value(document).unwrap_or(Value::Null);
        let info = &doc["info"];
        Self {
            title: text(&info["title"]),
            version: text(&info["version"]),
            description: text(&info["description"]),
            schemes: schemes(&doc),
            tags: tags(&doc),
            schemas: schemas(&doc),
        }
    }
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

fn object(value: &Value) -> impl Iterator<Item = (&String, &Value)> {
    value.as_object().into_iter().flat_map(Map::iter)
}

fn array(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

/// An `id` from any name: letters, digits and `_` kept, any run of other characters one `-`
/// (`GET /a/{id}` is `get-a-id`).
fn anchor(prefix: &str, name: &str) -> String {
    let mut id = prefix.to_owned();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            id.push(c);
        } else if !id.ends_with('-') {
            id.push('-');
        }
    }
    id.trim_end_matches('-').to_owned()
}

fn schema_anchor(name: &str) -> String {
    anchor("schema-", name)
}

fn schemes(doc: &Value) -> Vec<Scheme> {
    object(&doc["components"]["securitySchemes"])
        .map(|(name, scheme)| {
            let kind = match text(&scheme["type"]).as_str() {
                "apiKey" => format!(
                    "API key in the {} `{}`",
                    text(&scheme["in"]),
                    text(&scheme["name"])
                ),
                "http" => {
                    let format = text(&scheme["bearerFormat"]);
                    let format = if format.is_empty() {
                        String::new()
                    } else {
                        format!(" ({format})")
                    };
                    format!("HTTP {}{format}", text(&scheme["scheme"]))
                }
                other => other.to_owned(),
            };
            Scheme {
                name: name.clone(),
                anchor: anchor("auth-", name),
                kind,
                description: text(&scheme["description"]),
            }
        })
        .collect()
}

/// The operations by tag: the document's tags in order, then any tag it does not declare, then
/// the operations with none.
fn tags(doc: &Value) -> Vec<Tag> {
    let mut tags: Vec<Tag> = array(&doc["tags"])
        .map(|tag| {
            let name = text(&tag["name"]);
            Tag {
                anchor: anchor("tag-", &name),
                description: text(&tag["description"]),
                name,
                operations: Vec::new(),
            }
        })
        .collect();
    let mut anchors = HashSet::new();
    for (path, item) in object(&doc["paths"]) {
        for method in METHODS {
            let Some(operation) = item.get(method).filter(|o| o.is_object()) else {
                continue;
            };
            let operation = read_operation(doc, method, path, operation, &mut anchors);
            let tag = array(&item[method]["tags"])
                .next()
                .map_or_else(|| "other".to_owned(), text);
            let index = match tags.iter().position(|t| t.name == tag) {
                Some(index) => index,
                None => {
                    tags.push(Tag {
                        anchor: anchor("tag-", &tag),
                        name: tag,
                        description: String::new(),
                        operations: Vec::new(),
                    });
                    tags.len() - 1
                }
            };
            tags[index].operations.push(operation);
        }
    }
    tags.retain(|tag| !tag.operations.is_empty());
    tags
}

fn read_operation(
    doc: &Value,
    method: &str,
    path: &str,
    operation: &Value,
    anchors: &mut HashSet<String>,
) -> Operation {
    let mut id = anchor("op-", &format!("{method}-{path}"));
    let base = id.clone();
    let mut n = 2;
    while !anchors.insert(id.clone()) {
        id = format!("{base}-{n}");
        n += 1;
    }
    Operation {
        method: method.to_ascii_uppercase(),
        path: path.to_owned(),
        anchor: id,
        summary: text(&operation["summary"]),
        description: text(&operation["description"]),
        deprecated: operation["deprecated"].as_bool().unwrap_or(false),
        callers: callers(operation),
        parameters: array(&operation["parameters"])
            .map(|p| resolve(doc, p))
            .map(|p| Field {
                name: text(&p["name"]),
                location: text(&p["in"]),
                required: p["required"].as_bool().unwrap_or(false),
                kind: kind(doc, &p["schema"], DEPTH),
                description: text(&p["description"]),
            })
            .collect(),
        body: body(doc, &operation["requestBody"]),
        responses: object(&operation["responses"])
            .map(|(status, answer)| {
                let answer = resolve(doc, answer);
                let (content_type, schema) = first_content(answer);
                Answer {
                    status: status.clone(),
                    description: text(&answer["description"]),
                    content_type,
                    kind: schema.map(|s| kind(doc, s, DEPTH)).unwrap_or_default(),
                }
            })
            .collect(),
    }
}

/// Who may call an operation: each requirement is one way in; `{}` among them lets anyone in.
fn callers(operation: &Value) -> Vec<Caller> {
    let callers: Vec<Caller> = array(&operation["security"])
        .map(|requirement| Caller {
            schemes: object(requirement)
                .map(|(name, scopes)| SchemeUse {
                    name: name.clone(),
                    anchor: anchor("auth-", name),
                    scopes: array(scopes).map(text).collect(),
                })
                .collect(),
        })
        .collect();
    if callers.iter().any(|c| c.schemes.is_empty()) {
        return Vec::new();
    }
    callers
}

fn body(doc: &Value, body: &Value) -> Option<Body> {
    let body = resolve(doc, body);
    if !body.is_object() {
        return None;
    }
    let (content_type, schema) = first_content(body);
    let schema = schema.unwrap_or(&Value::Null);
    Some(Body {
        content_type,
        required: body["required"].as_bool().unwrap_or(false),
        description: text(&body["description"]),
        kind: kind(doc, schema, DEPTH),
        properties: properties(doc, resolve(doc, schema), DEPTH),
    })
}

/// The first media type of a body or answer, and its schema.
fn first_content(value: &Value) -> (String, Option<&Value>) {
    object(&value["content"])
        .next()
        .map_or((String::new(), None), |(media, content)| {
            (media.clone(), content.get("schema"))
        })
}

/// What a `$ref` points to in the document, or the value itself.
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    let Some(reference) = value["$ref"].as_str() else {
        return value;
    };
    let Some(pointer) = reference.strip_prefix('#') else {
        return value;
    };
    doc.pointer(pointer).unwrap_or(value)
}

fn schemas(doc: &Value) -> Vec<Schema> {
    object(&doc["components"]["schemas"])
        .map(|(name, schema)| Schema {
            name: name.clone(),
            anchor: schema_anchor(name),
            description: text(&schema["description"]),
            kind: kind(doc, schema, DEPTH),
            properties: properties(doc, schema, DEPTH),
        })
        .collect()
}

/// The properties of an object schema, and of each part of an `allOf`.
fn properties(doc: &Value, schema: &Value, depth: usize) -> Vec<Field> {
    let required: Vec<&str> = array(&schema["required"])
        .filter_map(Value::as_str)
        .collect();
    let mut fields: Vec<Field> = object(&schema["properties"])
        .map(|(name, property)| Field {
            name: name.clone(),
            location: String::new(),
            required: required.contains(&name.as_str()),
            kind: kind(doc, property, DEPTH),
            description: text(&resolve(doc, property)["description"]),
        })
        .collect();
    if depth > 0 {
        for part in array(&schema["allOf"]) {
            fields.extend(properties(doc, resolve(doc, part), depth - 1));
        }
    }
    fields
}

/// A JSON value as the page writes it (an enum's value).
fn literal(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}

/// The type of a schema as parts: a link for a named schema, `array of` its items, the
/// alternatives of a `oneOf` joined with "or", a closed set's values.
fn kind(doc: &Value, schema: &Value, depth: usize) -> Vec<Part> {
    if let Some(name) = schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix(SCHEMA_REF))
    {
        return vec![Part::schema(name)];
    }
    if depth == 0 {
        return vec![Part::text("…")];
    }
    for (key, word) in [("oneOf", " or "), ("anyOf", " or "), ("allOf", " and ")] {
        if let Some(alternatives) = schema[key].as_array() {
            return joined(alternatives.iter().map(|s| kind(doc, s, depth - 1)), word);
        }
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ if schema.get("properties").is_some() => vec!["object"],
        _ => return vec![Part::text("any")],
    };
    joined(
        types.into_iter().map(|t| typed(doc, schema, t, depth)),
        " or ",
    )
}

/// One of a schema's `type`s: `array of` its items, a closed set's values, `string (date-time)`.
fn typed(doc: &Value, schema: &Value, name: &str, depth: usize) -> Vec<Part> {
    if name == "array" {
        let mut parts = vec![Part::text("array of ")];
        parts.extend(kind(doc, &schema["items"], depth - 1));
        return parts;
    }
    let mut parts = vec![Part::code(name)];
    if name == "null" {
        return parts;
    }
    if let Some(format) = schema["format"].as_str() {
        parts.push(Part::text(" ("));
        parts.push(Part::code(format));
        parts.push(Part::text(")"));
    }
    if let Some(values) = schema["enum"].as_array() {
        parts.push(Part::text(": "));
        let values = values
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| vec![Part::code(&literal(v))]);
        parts.extend(joined(values, ", "));
    }
    parts
}

fn joined(kinds: impl Iterator<Item = Vec<Part>>, word: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    for (i, kind) in kinds.enumerate() {
        if i > 0 {
            parts.push(Part::text(word));
        }
        parts.extend(kind);
    }
    parts
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{DOCS, Pages, web_dir};

    /// A document with two tagged operations, one untagged, a named schema and a scheme.
    fn document() -> OpenApi {
        serde_json::from_value(json!({
            "openapi": "3.1.0",
            "info": {"title": "Shop", "version": "1.2.3", "description": "Sells `things`."},
            "tags": [
                {"name": "empty", "description": "No operation."},
                {"name": "items", "description": "The items."}
            ],
            "paths": {
                "/items/{id}": {
                    "put": {
                        "tags": ["items"], "summary": "Replace an item.",
                        "parameters": [{"name": "id", "in": "path", "required": true,
                            "description": "The item.", "schema": {"type": "string", "format": "uuid"}}],
                        "requestBody": {"required": true, "content": {"application/json":
                            {"schema": {"$ref": "#/components/schemas/Item"}}}},
                        "responses": {
                            "200": {"description": "Replaced.", "content": {"application/json":
                                {"schema": {"$ref": "#/components/schemas/Item"}}}},
                            "404": {"description": "No such item."}
                        },
                        "security": [{"api_key": ["items:write"]}, {"cookie": []}]
                    },
                    "get": {
                        "tags": ["items"], "summary": "An item.",
                        "responses": {"200": {"description": "The item."}},
                        "security": [{"api_key": []}, {}]
                    }
                },
                "/healthz": {"get": {"responses": {"204": {"description": "Up."}}}}
            },
            "components": {
                "schemas": {
                    "Item": {"type": "object", "required": ["name"], "properties": {
                        "name": {"type": "string", "description": "Its <name>."},
                        "size": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Size"}]},
                        "tags": {"type": "array", "items": {"type": "string"}}
                    }},
                    "Size": {"type": "string", "enum": ["small", "large"]}
                },
                "securitySchemes": {
                    "api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                    "cookie": {"type": "apiKey", "in": "cookie", "name": "session"}
                }
            }
        }))
        .unwrap()
    }

    fn texts(parts: &[Part]) -> String {
        parts.iter().map(|p| p.text.as_str()).collect()
    }

    #[test]
    fn every_operation_is_listed_under_its_first_tag_in_the_documents_order() {
        let reference = Reference::of(&document());

        let listed: Vec<(&str, Vec<String>)> = reference
            .tags
            .iter()
            .map(|tag| {
                let ops = tag.operations.iter();
                (
                    tag.name.as_str(),
                    ops.map(|o| format!("{} {}", o.method, o.path)).collect(),
                )
            })
            .collect();
        // A declared tag with no operation is left out; an untagged one is under "other".
        assert_eq!(
            listed,
            [
                (
                    "items",
                    vec!["GET /items/{id}".into(), "PUT /items/{id}".into()]
                ),
                ("other", vec!["GET /healthz".into()]),
            ]
        );
        assert_eq!(reference.tags[0].operations[1].anchor, "op-put-items-id");
        assert_eq!(
            (reference.title.as_str(), reference.version.as_str()),
            ("Shop", "1.2.3")
        );
    }

    #[test]
    fn who_may_call_an_operation_follows_its_security_requirements() {
        let reference = Reference::of(&document());
        let items = &reference.tags[0].operations;

        let put: Vec<(&str, &[String])> = items[1]
            .callers
            .iter()
            .flat_map(|c| {
                c.schemes
                    .iter()
                    .map(|s| (s.name.as_str(), s.scopes.as_slice()))
            })
            .collect();
        assert_eq!(
            put,
            [
                ("api_key", &["items:write".to_owned()][..]),
                ("cookie", &[][..])
            ]
        );
        // `{}` among the requirements lets anyone in, as does no requirement at all.
        assert!(items[0].callers.is_empty());
        assert!(reference.tags[1].operations[0].callers.is_empty());
        assert_eq!(
            reference.schemes[0].kind,
            "API key in the header `X-API-Key`"
        );
    }

    #[test]
    fn parameters_bodies_and_answers_name_their_types_and_link_named_schemas() {
        let reference = Reference::of(&document());
        let put = &reference.tags[0].operations[1];

        let id = &put.parameters[0];
        assert_eq!(
            (id.name.as_str(), id.location.as_str(), id.required),
            ("id", "path", true)
        );
        assert_eq!(texts(&id.kind), "string (uuid)");
        let body = put.body.as_ref().unwrap();
        assert_eq!(body.kind, [Part::schema("Item")]);
        assert_eq!(body.kind[0].anchor.as_deref(), Some("schema-Item"));
        let fields: Vec<(&str, bool, String)> = body
            .properties
            .iter()
            .map(|f| (f.name.as_str(), f.required, texts(&f.kind)))
            .collect();
        assert_eq!(
            fields,
            [
                ("name", true, "string".to_owned()),
                ("size", false, "null or Size".to_owned()),
                ("tags", false, "array of string".to_owned()),
            ]
        );
        let answers: Vec<(&str, String)> = put
            .responses
            .iter()
            .map(|a| (a.status.as_str(), texts(&a.kind)))
            .collect();
        assert_eq!(
            answers,
            [("200", "Item".to_owned()), ("404", String::new())]
        );
        let size = &reference.schemas[1];
        assert_eq!(
            (size.anchor.as_str(), texts(&size.kind)),
            ("schema-Size", "string: small, large".to_owned())
        );
    }

    #[test]
    fn the_reference_page_shows_every_operation_escaped_with_no_script() {
        let pages = Pages::assemble(&web_dir(), &document()).unwrap();
        let html = String::from_utf8(pages.named(DOCS).unwrap().html().to_vec()).unwrap();

        for (method, path, anchor) in [
            ("GET", "/items/{id}", "op-get-items-id"),
            ("PUT", "/items/{id}", "op-put-items-id"),
            ("GET", "/healthz", "op-get-healthz"),
        ] {
            // minijinja writes `/` as `&#x2f;` (the page shows `/`).
            let path = path.replace('/', "&#x2f;");
            assert!(
                html.contains(&format!(
                    r#"<h3 id="{anchor}"><span class="method">{method}</span> <code>{path}</code></h3>"#
                )),
                "{method} {path}"
            );
            assert!(
                html.contains(&format!(r##"<a href="#{anchor}">"##)),
                "{anchor} in the contents"
            );
        }
        // A schema named anywhere links to its heading.
        assert!(html.contains(r##"<a href="#schema-Item"><code>Item</code></a>"##));
        assert!(html.contains(r#"<h3 id="schema-Item"><code>Item</code></h3>"#));
        // The document's text is escaped, its `code` spans shown as code; the markup's own links
        // are as written.
        assert!(html.contains("Its &lt;name&gt;."), "escaped");
        assert!(html.contains("Sells <code>things</code>."));
        assert!(html.contains(r#"<a href="/openapi.json">"#));
        assert!(!html.contains("<script"));
        // Every table scrolls inside a labelled, focusable region, its headers scoped.
        assert_eq!(
            html.matches("<table>").count(),
            html.matches(r#"role="region" aria-labelledby="#).count()
        );
        assert!(!html.contains("<th>"));
    }
}
