//! The HTML pages of `web/`, each assembled once at start-up from the one layout
//! (`web/layout.html`: head, skip link, header and navigation) and the page's own template in
//! `web/pages/` (its title, script and `<main>`). The service stays build-free for whoever
//! deploys it: edit a file in `web/`, restart, and every page has it.

use std::collections::HashMap;
use std::path::Path;

use actix_web::web::Bytes;
use anyhow::Context;
use minijinja::{AutoEscape, Environment, context};

/// The layout every page extends.
pub const LAYOUT: &str = "layout.html";
/// Where the pages' own templates are, under the web directory.
pub const PAGES_DIR: &str = "pages";

/// Every page, by the paths it is served at (`/profile.html`; `index` also at `/`, `login`
/// also at `/login`).
#[derive(Debug, Clone, Default)]
pub struct Pages(HashMap<String, Bytes>);

impl Pages {
    /// Reads the layout and every `pages/<name>.html` under `dir` and renders each page.
    ///
    /// # Errors
    /// A missing or unreadable layout or pages directory, or a template that does not render
    /// (a syntax error, an unknown block), named in the message.
    pub fn assemble(dir: &Path) -> anyhow::Result<Self> {
        let mut env = Environment::new();
        // The templates hold only the service's own markup; there are no values to escape.
        env.set_auto_escape_callback(|_| AutoEscape::None);
        let layout = dir.join(LAYOUT);
        let source = std::fs::read_to_string(&layout)
            .with_context(|| format!("reading the page layout {}", layout.display()))?;
        env.add_template_owned(LAYOUT, source)
            .with_context(|| format!("in {}", layout.display()))?;

        let pages_dir = dir.join(PAGES_DIR);
        let entries = std::fs::read_dir(&pages_dir)
            .with_context(|| format!("reading the pages in {}", pages_dir.display()))?;
        let mut names = Vec::new();
        for entry in entries {
            let path = entry?.path();
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
            names.push((name.to_owned(), key));
        }

        let mut pages = HashMap::new();
        for (name, key) in names {
            let path = format!("/{name}");
            let current = if name == "index.html" {
                "/"
            } else {
                path.as_str()
            };
            let html = env
                .get_template(&key)
                .and_then(|t| t.render(context! { current }))
                .with_context(|| format!("rendering {}", pages_dir.join(&name).display()))?;
            let html = Bytes::from(html);
            match name.as_str() {
                "index.html" => {
                    pages.insert("/".to_owned(), html.clone());
                }
                "login.html" => {
                    pages.insert("/login".to_owned(), html.clone());
                }
                _ => {}
            }
            pages.insert(path, html);
        }
        anyhow::ensure!(
            pages.contains_key("/") && pages.contains_key("/login"),
            "{} needs index.html and login.html",
            pages_dir.display()
        );
        Ok(Self(pages))
    }

    /// The page served at `path`, if there is one.
    #[must_use]
    pub fn get(&self, path: &str) -> Option<&Bytes> {
        self.0.get(path)
    }

    /// Every path a page is served at.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
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

    const LAYOUT_SOURCE: &str = "<title>{% block title %}{% endblock %}</title>\
        {% if current == '/' %}<a aria-current=page>{% endif %}{% block content %}{% endblock %}";

    fn page(title: &str, content: &str) -> String {
        format!(
            "{{% extends \"layout.html\" %}}{{% block title %}}{title}{{% endblock %}}\
             {{% block content %}}{content}{{% endblock %}}"
        )
    }

    #[test]
    fn each_page_fills_the_layout_and_is_served_at_its_paths() {
        let home = page("Home", "<main>A & <b>B</b></main>");
        let login = page("Sign in", "<main>in</main>");
        let dir = site(
            LAYOUT_SOURCE,
            &[
                ("index.html", &home),
                ("login.html", &login),
                ("notes.txt", "x"),
            ],
        );
        let pages = Pages::assemble(dir.path()).unwrap();

        let index = String::from_utf8(pages.get("/").unwrap().to_vec()).unwrap();
        // Markup is kept as written (nothing escaped), and the current page is marked.
        assert_eq!(
            index,
            "<title>Home</title><a aria-current=page><main>A & <b>B</b></main>"
        );
        assert_eq!(pages.get("/index.html"), pages.get("/"));
        let sign_in = String::from_utf8(pages.get("/login").unwrap().to_vec()).unwrap();
        assert_eq!(sign_in, "<title>Sign in</title><main>in</main>");
        let mut paths: Vec<&str> = pages.paths().collect();
        paths.sort_unstable();
        assert_eq!(paths, ["/", "/index.html", "/login", "/login.html"]);
    }

    #[test]
    fn a_broken_or_missing_template_stops_start_up_naming_the_file() {
        let broken = site(LAYOUT_SOURCE, &[("index.html", "{% block title %}")]);
        let error = format!("{:#}", Pages::assemble(broken.path()).unwrap_err());
        assert!(error.contains("index.html"), "{error}");

        let no_layout = tempfile::tempdir().unwrap();
        let error = format!("{:#}", Pages::assemble(no_layout.path()).unwrap_err());
        assert!(error.contains("layout.html"), "{error}");

        let no_login = site(LAYOUT_SOURCE, &[("index.html", &page("Home", "x"))]);
        let error = format!("{:#}", Pages::assemble(no_login.path()).unwrap_err());
        assert!(error.contains("login.html"), "{error}");
    }

    #[test]
    fn the_pages_of_this_repository_assemble() {
        let pages = Pages::assemble(&crate::routes::web::web_dir()).unwrap();
        for path in [
            "/",
            "/login",
            "/discovery.html",
            "/profile.html",
            "/coaching.html",
            "/dashboard.html",
            "/account.html",
        ] {
            let html = String::from_utf8(pages.get(path).unwrap().to_vec()).unwrap();
            assert!(html.starts_with("<!doctype html>"), "{path}");
            assert_eq!(html.matches("<main").count(), 1, "{path}");
            assert!(!html.contains("{%") && !html.contains("{{"), "{path}");
        }
        let profile = String::from_utf8(pages.get("/profile.html").unwrap().to_vec()).unwrap();
        assert!(profile.contains(r#"<a href="/profile.html" aria-current="page">Profile</a>"#));
        assert_eq!(profile.matches("aria-current").count(), 1);
    }
}
