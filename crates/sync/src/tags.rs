//! Tags as the contract takes them: at most 20 per entry, each of 1-100 characters, not blank
//! and without control characters (tab, line feed and carriage return aside).

/// The contract's cap on the number of tags of one entry, as the domain defines it.
pub const MAX_TAGS: usize = domain::integration::rules::MAX_TAGS;
/// The contract's cap on one tag's length, in characters, as the domain defines it.
pub const MAX_TAG_CHARS: usize = domain::integration::rules::TAG_MAX_CHARS;

/// Whether the service refuses `c` in text: the control characters below the space, except tab,
/// line feed and carriage return.
#[must_use]
pub fn is_refused(c: char) -> bool {
    c < ' ' && !matches!(c, '\t' | '\n' | '\r')
}

/// `text` with every character the service refuses replaced by a space.
#[must_use]
pub fn without_refused(text: &str) -> String {
    text.chars()
        .map(|c| if is_refused(c) { ' ' } else { c })
        .collect()
}

/// At most [`MAX_TAGS`] distinct non-blank tags of at most [`MAX_TAG_CHARS`] characters, in
/// order, trimmed, telling `warn` what was cut, dropped or cleaned (control characters the
/// service refuses become spaces). Blank tags and repeats go silently.
pub fn fit_tags_with<'a>(
    tags: impl Iterator<Item = &'a str>,
    mut warn: impl FnMut(String),
) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    for tag in tags {
        let cleaned;
        let tag = if tag.chars().any(is_refused) {
            cleaned = without_refused(tag);
            warn(format!(
                "tag {tag:?}: control characters replaced by spaces"
            ));
            cleaned.trim()
        } else {
            tag.trim()
        };
        if tag.is_empty() {
            continue;
        }
        let fitted = if tag.chars().count() > MAX_TAG_CHARS {
            let cut: String = tag.chars().take(MAX_TAG_CHARS).collect();
            warn(format!("tag {cut:?}... cut to {MAX_TAG_CHARS} characters"));
            cut
        } else {
            tag.to_owned()
        };
        if kept.contains(&fitted) || dropped.contains(&fitted) {
            continue;
        }
        if kept.len() < MAX_TAGS {
            kept.push(fitted);
        } else {
            dropped.push(fitted);
        }
    }
    if !dropped.is_empty() {
        warn(format!(
            "{} tags over the limit of {MAX_TAGS} dropped: {}",
            dropped.len(),
            dropped.join(", ")
        ));
    }
    kept
}
