//! The HTML pages of `web/`, each assembled once at start-up from the one layout
//! (`web/layout.html`: head, skip link, header and navigation) and the page's own template in
//! `web/pages/` (its title, script and `<main>`). The service stays build-free for whoever
//! deploys it: edit a file in `web/`, restart, and every page has it. A page that cannot be
//! assembled (a syntax error, a block the layout requires left unfilled, no `extends`) stops
//! start-up with one line naming its file, never a half-empty page at run time. The API
//! reference (`pages/docs.html`) is the one page with values from elsewhere, the OpenAPI
//! document's texts: it alone is escaped.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use bytes::Bytes;
use minijinja::value::Serde;
// minijinja's own escaping, in the templates and for the code spans the `prose` filter
// makes: it also writes `/` as `&#x2f;`, which reads the same on the page.
use minijinja::{
    AutoEscape, Environment, Error, ErrorKind, HtmlEscape, State, UndefinedBehavior, Value, context,
};
use sha2::{Digest, Sha256};
use utoipa::openapi::OpenApi;

use crate::reference::Reference;

/// The layout every page extends.
pub const LAYOUT: &str = "layout.html";
/// Where the pages' own templates are, under the web directory.
pub const PAGES_DIR: &str = "pages";
/// The page at `/` (and `/index.html`).
pub const INDEX: &str = "index.html";
/// The sign-in page, at `/login` (and `/login.html`).
pub const LOGIN: &str = "login.html";
/// The API reference, at `/docs` (and `/docs.html`), rendered from the OpenAPI document.
pub const DOCS: &str = "docs.html";

/// One assembled page and what a cache needs to revalidate it.
#[derive(Debug, Clone)]
pub struct Page {
    name: String,
    html: Bytes,
    etag: String,
    last_modified: Option<SystemTime>,
}

impl Page {
    /// The page's file name (`profile.html`), as a download would be called.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The assembled HTML.
    #[must_use]
    pub fn html(&self) -> &Bytes {
        &self.html
    }

    /// A strong tag of the assembled HTML (without its quotes): the same on every instance
    /// serving the same files.
    #[must_use]
    pub fn etag(&self) -> &str {
        &self.etag
    }

    /// The later change of the layout and the page's template, in whole seconds, when the file
    /// system says.
    #[must_use]
    pub fn last_modified(&self) -> Option<SystemTime> {
        self.last_modified
    }
}

/// Every page, by its file name in `web/pages/`.
#[derive(Debug, Clone, Default)]
pub struct Pages(HashMap<String, Page>);

impl Pages {
    /// Reads the layout and every `pages/<name>.html` under `dir` and renders each page; the
    /// reference page (`docs.html`) is given `document` to show.
    ///
    /// # Errors
    /// A missing or unreadable layout or pages directory, no `index.html` or `login.html`, or a
    /// template that does not render: a syntax error, a block the layout requires that the page
    /// does not fill, or a page that does not extend the layout. The message names the file.
    pub fn assemble(dir: &Path, document: &OpenApi) -> anyhow::Result<Self> {
        let mut env = environment();
        let layout = dir.join(LAYOUT);
        let layout_source = std::fs::read_to_string(&layout)
            .with_context(|| format!("reading the page layout {}", layout.display()))?;
        let layout_modified = modified(&layout);
        env.add_template_owned(LAYOUT, layout_source)
            .with_context(|| format!("in {}", layout.display()))?;

        let pages_dir = dir.join(PAGES_DIR);
        let sources = add_pages(&mut env, &pages_dir, layout_modified)?;
        let reference = Value::from(Serde(Reference::of(document)));
        let mut pages = HashMap::new();
        for (name, key, last_modified) in sources {
            let page = render(
                &env,
                &pages_dir,
                (name.clone(), &key),
                last_modified,
                &reference,
            )?;
            pages.insert(name, page);
        }
        for needed in [INDEX, LOGIN] {
            anyhow::ensure!(
                pages.contains_key(needed),
                "{} has no {needed}",
                pages_dir.display()
            );
        }
        Ok(Self(pages))
    }

    /// The page a path under `/` names, as the file server reads it (`""` the index,
    /// `profile.html`); nothing for a path in a directory.
    #[must_use]
    pub fn at(&self, path: &Path) -> Option<&Page> {
        if path.as_os_str().is_empty() {
            return self.0.get(INDEX);
        }
        self.0.get(path.to_str()?)
    }

    /// The page of this file name (`login.html`).
    #[must_use]
    pub fn named(&self, name: &str) -> Option<&Page> {
        self.0.get(name)
    }

    /// Every page's file name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}

/// The template engine the pages are assembled with.
fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // The templates hold only the service's own markup, with no values to escape, except the
    // reference, which shows the document's texts.
    env.set_auto_escape_callback(|name| {
        if name == format!("{PAGES_DIR}/{DOCS}") {
            AutoEscape::Html
        } else {
            AutoEscape::None
        }
    });
    env.add_filter("prose", prose);
    // A misspelt variable is an error, not an empty string.
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    // The layout's default for a block every page must fill (`{{ required() }}`).
    env.add_function("required", |state: &State| -> Result<String, Error> {
        Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "the page fills no `{}` block, which {LAYOUT} requires",
                state.current_block().unwrap_or("?")
            ),
        ))
    });
    env
}

/// The document's text, escaped, with each `` `span` `` shown as code.
fn prose(text: &str) -> Value {
    let mut html = String::with_capacity(text.len());
    for (i, part) in text.split('`').enumerate() {
        // Odd parts are inside backticks; an unpaired last backtick leaves its text as text.
        if i % 2 == 1 && text.split('`').count() > i + 1 {
            html.push_str("<code>");
            html.push_str(&HtmlEscape(part).to_string());
            html.push_str("</code>");
        } else {
            if i % 2 == 1 {
                html.push('`');
            }
            html.push_str(&HtmlEscape(part).to_string());
        }
    }
    Value::from_safe_string(html)
}

/// Adds every `.html` template of `pages_dir` to `env`; returns each page's file name, template
/// key and last change (its own or the layout's, whichever is later).
fn add_pages(
    env: &mut Environment<'static>,
    pages_dir: &Path,
    layout_modified: Option<SystemTime>,
) -> anyhow::Result<Vec<(String, String, Option<SystemTime>)>> {
    let entries = std::fs::read_dir(pages_dir)
        .with_context(|| format!("reading the pages in {}", pages_dir.display()))?;
    let mut sources = Vec::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("reading the pages in {}", pages_dir.display()))?
            .path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !name.ends_with(".html") {
            continue;
        }
        let source = std::fs::read_to_string(&path)
            .with_context(|| format!("reading the page {}", path.display()))?;
        let key = format!("{PAGES_DIR}/{name}");
        env.add_template_owned(key.clone(), source)
            .with_context(|| format!("in {}", path.display()))?;
        let last_modified = modified(&path).max(layout_modified);
        sources.push((name.to_owned(), key, last_modified));
    }
    Ok(sources)
}

/// Renders the page `name` (template `key`) with its navigation link marked current, and the
/// reference for the page that shows it.
fn render(
    env: &Environment<'static>,
    pages_dir: &Path,
    (name, key): (String, &str),
    last_modified: Option<SystemTime>,
    reference: &Value,
) -> anyhow::Result<Page> {
    let file = pages_dir.join(&name);
    // The navigation link this page marks as the current one.
    let current = if name == INDEX {
        "/".to_owned()
    } else {
        format!("/{name}")
    };
    let html = env
        .get_template(key)
        .and_then(|t| t.render(context! { current, reference => reference.clone() }))
        .with_context(|| format!("rendering {}", file.display()))?;
    // Forgetting `{% extends %}` renders the page's blocks alone: no head, no navigation.
    anyhow::ensure!(
        html.trim_start()
            .get(..14)
            .is_some_and(|start| start.eq_ignore_ascii_case("<!doctype html")),
        "{} does not extend {LAYOUT}: it must begin with {{% extends \"{LAYOUT}\" %}}",
        file.display()
    );
    let digest = Sha256::digest(html.as_bytes());
    let etag = hex::encode(&digest[..16]);
    Ok(Page {
        name,
        html: Bytes::from(html),
        etag,
        last_modified,
    })
}

/// When the file last changed, in whole seconds as `Last-Modified` and `If-Modified-Since` say.
fn modified(path: &Path) -> Option<SystemTime> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    let seconds = modified.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(UNIX_EPOCH + Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(layout: &str, pages: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LAYOUT), layout).unwrap();
        std::fs::create_dir(dir.path().join(PAGES_DIR)).unwrap();
        for (name, source) in pages {
            std::fs::write(dir.path().join(PAGES_DIR).join(name), source).unwrap();
        }
        dir
    }

    const LAYOUT_SOURCE: &str = "<!doctype html><title>{% block title %}{{ required() }}\
        {% endblock %}</title>{% if current == '/' %}<a aria-current=page>{% endif %}\
        {% block content %}{{ required() }}{% endblock %}";

    fn page(title: &str, content: &str) -> String {
        format!(
            "{{% extends \"layout.html\" %}}{{% block title %}}{title}{{% endblock %}}\
             {{% block content %}}{content}{{% endblock %}}"
        )
    }

    fn html(pages: &Pages, name: &str) -> String {
        String::from_utf8(pages.named(name).unwrap().html().to_vec()).unwrap()
    }

    fn failure(dir: &tempfile::TempDir) -> String {
        format!(
            "{:#}",
            Pages::assemble(dir.path(), &OpenApi::default()).unwrap_err()
        )
    }

    #[test]
    fn each_page_fills_the_layouts_slots_and_its_markup_is_kept_as_written() {
        let home = page("Home", "<main>A & <b>B</b> &amp; \"q\" {{ '<i>' }}</main>");
        let login = page("Sign in", "<main>in</main>");
        let dir = site(
            LAYOUT_SOURCE,
            &[(INDEX, &home), (LOGIN, &login), ("notes.txt", "x")],
        );
        let pages = Pages::assemble(dir.path(), &OpenApi::default()).unwrap();

        // Nothing is escaped or unescaped, and the home page's link is marked as current.
        assert_eq!(
            html(&pages, INDEX),
            "<!doctype html><title>Home</title><a aria-current=page>\
             <main>A & <b>B</b> &amp; \"q\" <i></main>"
        );
        assert_eq!(
            html(&pages, LOGIN),
            "<!doctype html><title>Sign in</title><main>in</main>"
        );
        let mut names: Vec<&str> = pages.names().collect();
        names.sort_unstable();
        assert_eq!(names, [INDEX, LOGIN]);
    }

    #[test]
    fn a_page_is_found_where_the_file_server_would_look_for_it() {
        let dir = site(
            LAYOUT_SOURCE,
            &[(INDEX, &page("Home", "h")), (LOGIN, &page("In", "l"))],
        );
        let pages = Pages::assemble(dir.path(), &OpenApi::default()).unwrap();

        assert_eq!(pages.at(Path::new("")).unwrap().name(), INDEX);
        assert_eq!(pages.at(Path::new(INDEX)).unwrap().name(), INDEX);
        assert_eq!(pages.at(Path::new(LOGIN)).unwrap().name(), LOGIN);
        for elsewhere in ["login", "pages/login.html", "css/login.html", LAYOUT] {
            assert!(pages.at(Path::new(elsewhere)).is_none(), "{elsewhere}");
        }
    }

    #[test]
    fn each_page_has_a_strong_tag_of_its_content() {
        let dir = site(
            LAYOUT_SOURCE,
            &[(INDEX, &page("Home", "h")), (LOGIN, &page("In", "l"))],
        );
        let first = Pages::assemble(dir.path(), &OpenApi::default()).unwrap();
        let again = Pages::assemble(dir.path(), &OpenApi::default()).unwrap();

        let index = first.named(INDEX).unwrap();
        // Hexadecimal: a tag the server may send strong, quoted, as it is.
        assert_eq!(index.etag().len(), 32);
        assert!(index.etag().chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(index.etag(), again.named(INDEX).unwrap().etag());
        assert_ne!(index.etag(), first.named(LOGIN).unwrap().etag());
        assert!(index.last_modified().is_some());
    }

    #[test]
    fn a_page_that_leaves_a_required_slot_empty_stops_start_up_naming_the_page_and_slot() {
        // `contnet`: a misspelt block is no block the layout has, so `content` stays unfilled.
        let misspelt = "{% extends \"layout.html\" %}{% block title %}Home{% endblock %}\
            {% block contnet %}<main></main>{% endblock %}";
        let dir = site(
            LAYOUT_SOURCE,
            &[(INDEX, misspelt), (LOGIN, &page("In", "l"))],
        );

        let error = failure(&dir);
        assert!(error.contains("pages/index.html"), "{error}");
        assert!(error.contains("`content`"), "{error}");
    }

    #[test]
    fn a_page_that_does_not_extend_the_layout_stops_start_up() {
        let dir = site(
            LAYOUT_SOURCE,
            &[
                (INDEX, "{% block title %}Home{% endblock %}<main></main>"),
                (LOGIN, &page("In", "l")),
            ],
        );

        let error = failure(&dir);
        assert!(error.contains("pages/index.html"), "{error}");
        assert!(error.contains("does not extend layout.html"), "{error}");
    }

    #[test]
    fn a_broken_or_missing_template_stops_start_up_naming_the_file() {
        let broken = site(LAYOUT_SOURCE, &[(INDEX, "{% block title %}")]);
        assert!(
            failure(&broken).contains("index.html"),
            "{}",
            failure(&broken)
        );

        let unknown = site(
            LAYOUT_SOURCE,
            &[
                (INDEX, &page("{{ titel }}", "x")),
                (LOGIN, &page("In", "l")),
            ],
        );
        assert!(
            failure(&unknown).contains("index.html"),
            "{}",
            failure(&unknown)
        );

        let bad_layout = site("{% block title %", &[(INDEX, &page("Home", "x"))]);
        assert!(
            failure(&bad_layout).contains(LAYOUT),
            "{}",
            failure(&bad_layout)
        );

        let no_layout = tempfile::tempdir().unwrap();
        assert!(
            failure(&no_layout).contains(LAYOUT),
            "{}",
            failure(&no_layout)
        );

        let no_login = site(LAYOUT_SOURCE, &[(INDEX, &page("Home", "x"))]);
        assert!(failure(&no_login).contains(LOGIN), "{}", failure(&no_login));
    }

    #[test]
    fn the_pages_of_this_repository_assemble() {
        let pages = Pages::assemble(&crate::web_dir(), &OpenApi::default()).unwrap();
        let mut names: Vec<&str> = pages.names().collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "account.html",
                "coaching.html",
                "dashboard.html",
                "discovery.html",
                DOCS,
                INDEX,
                LOGIN,
                "not-found.html",
                "profile.html",
            ]
        );
        for name in names {
            let html = html(&pages, name);
            assert!(html.starts_with("<!doctype html>"), "{name}");
            assert_eq!(html.matches("<main").count(), 1, "{name}");
            assert!(!html.contains("{%") && !html.contains("{{"), "{name}");
            // Every page has its one script, except the reference, which needs none.
            let scripts = if name == DOCS { 0 } else { 1 };
            assert_eq!(
                html.matches(r#"<script type="module" src="/js/"#).count(),
                scripts,
                "{name}"
            );
            assert_eq!(html.matches("<script").count(), scripts, "{name}");
        }
        let profile = html(&pages, "profile.html");
        assert!(profile.contains(r#"<a href="/profile.html" aria-current="page">Profile</a>"#));
        assert_eq!(profile.matches("aria-current").count(), 1);
        // The sign-in page has the header without the navigation.
        assert!(!html(&pages, LOGIN).contains("<nav"));
    }
}
