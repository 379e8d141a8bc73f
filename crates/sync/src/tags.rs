//! Tags as the contract takes them: at most 20 per entry, each of 1-100 characters.

/// The contract's cap on the number of tags of one entry.
pub const MAX_TAGS: usize = 20;
/// The contract's cap on one tag's length, in characters.
pub const MAX_TAG_CHARS: usize = 100;

/// At most [`MAX_TAGS`] distinct non-empty tags of at most [`MAX_TAG_CHARS`] characters, in
/// order, telling `warn` what was cut or dropped. Empty tags and repeats go silently.
pub fn fit_tags_with<'a>(
    tags: impl Iterator<Item = &'a str>,
    mut warn: impl FnMut(String),
) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    for tag in tags.filter(|t| !t.is_empty()) {
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
