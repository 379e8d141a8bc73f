//! Unicode-safe text handling shared by the engine: sentences, words, content words, cutting
//! and case-insensitive phrase search. Every piece it returns is a slice of the text it was given,
//! so whatever the engine quotes is provably the person's own wording.

use std::collections::BTreeSet;

/// Characters that end a sentence.
const TERMINATORS: &[char] = &[
    '.', '!', '?', '…', '。', '！', '？', '｡', '؟', '۔', '।', '॥',
];

/// Terminators of scripts written without spaces: they end a sentence even when the next
/// character follows immediately (Chinese and Japanese rarely put a space after `。`).
const WIDE_TERMINATORS: &[char] = &['。', '！', '？', '｡'];

/// Closing quotes and brackets that belong to the sentence they close.
const CLOSERS: &[char] = &['"', '\'', '”', '’', '»', ')', ']', '」', '』', '）'];

/// Marks the cut of an over-long quote. It is the only character the engine adds inside a quote.
pub const ELLIPSIS: char = '…';

/// Common English words that carry no content of their own. Only used to rank sentences and to
/// find recurring words, never to change what is quoted.
const STOPWORDS: &[&str] = &[
    "about",
    "above",
    "after",
    "again",
    "all",
    "also",
    "always",
    "and",
    "any",
    "are",
    "aren't",
    "around",
    "because",
    "been",
    "before",
    "being",
    "both",
    "but",
    "can",
    "can't",
    "could",
    "did",
    "didn't",
    "does",
    "doesn't",
    "doing",
    "don't",
    "down",
    "during",
    "each",
    "else",
    "even",
    "ever",
    "every",
    "few",
    "for",
    "from",
    "get",
    "gets",
    "getting",
    "got",
    "had",
    "has",
    "have",
    "having",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i'd",
    "i'll",
    "i'm",
    "i've",
    "into",
    "isn't",
    "it's",
    "its",
    "itself",
    "just",
    "let",
    "like",
    "lot",
    "lots",
    "make",
    "makes",
    "many",
    "may",
    "me",
    "mine",
    "more",
    "most",
    "much",
    "myself",
    "never",
    "not",
    "now",
    "off",
    "often",
    "once",
    "one",
    "only",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "really",
    "same",
    "she",
    "so",
    "some",
    "something",
    "still",
    "such",
    "than",
    "that",
    "that's",
    "the",
    "their",
    "theirs",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "through",
    "too",
    "under",
    "until",
    "upon",
    "very",
    "want",
    "was",
    "wasn't",
    "way",
    "we",
    "well",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
];

/// Splits `text` into trimmed, non-blank sentences, each a slice of `text`.
///
/// A sentence ends at a terminator (with any further terminators and closing quotes) followed by
/// whitespace or the end, right after a wide terminator, or at a line break. A full stop inside a
/// word or number ("3.5", "example.com") does not end a sentence.
#[must_use]
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let boundary = if c == '\n' || c == '\r' {
            Some((i, i + c.len_utf8()))
        } else if TERMINATORS.contains(&c) {
            let mut end = i + c.len_utf8();
            let mut wide = WIDE_TERMINATORS.contains(&c);
            while let Some(&(j, d)) = chars.peek() {
                if TERMINATORS.contains(&d) || CLOSERS.contains(&d) {
                    wide |= WIDE_TERMINATORS.contains(&d);
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            match chars.peek() {
                None => Some((end, end)),
                Some(&(_, d)) if wide || d.is_whitespace() => Some((end, end)),
                Some(_) => None,
            }
        } else {
            None
        };
        if let Some((end, next)) = boundary {
            push_trimmed(&mut out, &text[start..end]);
            start = next;
        }
    }
    push_trimmed(&mut out, &text[start..]);
    out
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, piece: &'a str) {
    let piece = piece.trim();
    if !piece.is_empty() {
        out.push(piece);
    }
}

/// Whether `sentence` ends with a terminator (possibly followed by closing quotes).
#[must_use]
pub fn ends_with_terminator(sentence: &str) -> bool {
    sentence
        .trim_end()
        .trim_end_matches(CLOSERS)
        .ends_with(TERMINATORS)
}

/// Joins quoted sentences so that [`sentences`] splits them apart again: a space after a Latin
/// terminator, nothing after a wide one, and a line break after a sentence with no terminator.
#[must_use]
pub fn join_sentences<S: AsRef<str>>(parts: &[S]) -> String {
    let mut out = String::new();
    for part in parts {
        let part = part.as_ref();
        if !out.is_empty() {
            let wide = out.trim_end_matches(CLOSERS).ends_with(WIDE_TERMINATORS);
            if !wide {
                out.push(if ends_with_terminator(&out) {
                    ' '
                } else {
                    '\n'
                });
            }
        }
        out.push_str(part);
    }
    out
}

/// Strips trailing terminators, closing quotes and spaces (for a quote set inside a frame).
#[must_use]
pub fn without_terminator(sentence: &str) -> &str {
    sentence.trim_end_matches(|c: char| {
        TERMINATORS.contains(&c) || CLOSERS.contains(&c) || c.is_whitespace()
    })
}

/// A character that is part of a word: letters and digits of any script, and the combining
/// marks that some scripts (Hebrew points, Devanagari vowel signs) write inside words.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_extending(c)
}

/// The words of `text` with their byte offsets. Inner apostrophes stay ("don't", "I’m").
#[must_use]
pub fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let inside = is_word_char(c) || c == '\'' || c == '’';
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                push_word(&mut out, text, s, i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        push_word(&mut out, text, s, text.len());
    }
    out
}

fn push_word<'a>(out: &mut Vec<(usize, &'a str)>, text: &'a str, start: usize, end: usize) {
    let piece = &text[start..end];
    let trimmed = piece.trim_start_matches(['\'', '’']);
    let lead = piece.len() - trimmed.len();
    let trimmed = trimmed.trim_end_matches(['\'', '’']);
    if !trimmed.is_empty() {
        out.push((start + lead, trimmed));
    }
}

/// A word in the form the engine compares: lower case, typographic apostrophes made plain.
#[must_use]
pub fn normalize(word: &str) -> String {
    word.to_lowercase().replace('’', "'")
}

/// Whether a normalized word carries content: three characters or more, not only digits, and
/// not a stop word.
#[must_use]
pub fn is_content_word(normalized: &str) -> bool {
    normalized.chars().count() >= 3
        && !normalized.chars().all(|c| c.is_numeric())
        && !STOPWORDS.contains(&normalized)
}

/// The distinct content words of `text`, normalized.
#[must_use]
pub fn content_words(text: &str) -> BTreeSet<String> {
    words(text)
        .into_iter()
        .map(|(_, w)| normalize(w))
        .filter(|w| is_content_word(w))
        .collect()
}

/// Characters that continue the character before them: combining marks, joiners, variation
/// selectors, emoji modifiers and tags. A cut never lands right before one of them.
#[must_use]
pub fn is_extending(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F
        | 0x0483..=0x0489
        | 0x0591..=0x05BD | 0x05BF | 0x05C1..=0x05C2 | 0x05C4..=0x05C5 | 0x05C7
        | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06DC | 0x06DF..=0x06E4
        | 0x06E7..=0x06E8 | 0x06EA..=0x06ED
        | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963
        | 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E
        | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF
        | 0x200C..=0x200D
        | 0x20D0..=0x20FF
        | 0x3099..=0x309A
        | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F
        | 0x1F3FB..=0x1F3FF
        | 0xE0020..=0xE007F | 0xE0100..=0xE01EF)
}

fn is_regional_indicator(c: char) -> bool {
    matches!(c as u32, 0x1F1E6..=0x1F1FF)
}

/// `text` if it has at most `max_chars` characters; otherwise its longest prefix that fits with
/// an [`ELLIPSIS`] appended, cut at a space when one falls in the second half of the prefix, and
/// never inside a character or before a mark, joiner or flag half that continues it.
#[must_use]
pub fn cut(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let keep = max_chars.saturating_sub(1);
    let mut end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    if let Some((space, _)) = head.char_indices().rev().find(|(_, c)| c.is_whitespace())
        && head[..space].chars().count() >= keep / 2
    {
        end = space;
    }
    end = safe_boundary(text, end);
    let mut out = text[..end].trim_end().to_owned();
    out.push(ELLIPSIS);
    out
}

/// The start of `text` in at most `max_chars`, cut as [`cut`] cuts but without the ellipsis:
/// a verbatim span of the text, for a quote.
#[must_use]
pub fn verbatim_prefix(text: &str, max_chars: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut out = cut(text, max_chars);
    out.pop();
    out
}

/// Moves a cut back until it does not separate a character from what continues it.
fn safe_boundary(text: &str, mut end: usize) -> usize {
    while end > 0 {
        let next = text[end..].chars().next();
        let prev = text[..end].chars().next_back();
        let splits = match (prev, next) {
            (_, Some(n)) if is_extending(n) => true,
            (Some('\u{200D}'), _) => true,
            (Some(p), Some(n)) => is_regional_indicator(p) && is_regional_indicator(n),
            _ => false,
        };
        if !splits {
            break;
        }
        end -= prev.map_or(1, char::len_utf8);
    }
    end
}

/// At most `max_words` space-separated words of `text` (and at most `max_chars` characters),
/// with an [`ELLIPSIS`] when something was left out.
#[must_use]
pub fn cut_words(text: &str, max_words: usize, max_chars: usize) -> String {
    let mut seen = 0;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            in_word = false;
        } else if !in_word {
            in_word = true;
            seen += 1;
            if seen > max_words {
                let mut out = text[..i].trim_end().to_owned();
                out.push(ELLIPSIS);
                return cut(&out, max_chars);
            }
        }
    }
    cut(text, max_chars)
}

/// Upper-cases the first character of `text` (the start of a quote that becomes a summary).
#[must_use]
pub fn capitalize_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if first.is_lowercase() => first.to_uppercase().chain(chars).collect(),
        _ => text.to_owned(),
    }
}

/// Whether the needle character matches the text character: ASCII case-insensitively, with
/// typographic apostrophes and dashes standing for plain ones.
fn same(needle: char, c: char) -> bool {
    needle == c.to_ascii_lowercase()
        || (needle == '\'' && matches!(c, '’' | '‘'))
        || (needle == '-' && matches!(c, '‐' | '‑' | '–' | '—'))
        // "big-picture" and "how-it-fits" are the words "big picture" and "how it fits".
        || (needle == ' ' && matches!(c, '-' | '‐' | '‑'))
}

/// The first occurrence of the lower-case `needle` in `hay` at or after byte `from`, on word
/// boundaries, case-insensitively; its byte range.
#[must_use]
pub fn find_phrase(hay: &str, needle: &str, from: usize) -> Option<(usize, usize)> {
    let first = needle.chars().next()?;
    let first_is_word = is_word_char(first);
    let last_is_word = needle.chars().next_back().is_some_and(is_word_char);
    let tail = hay.get(from..)?;
    // Only positions whose character matches the needle's first one are tried further.
    for (offset, c) in tail.char_indices() {
        if !same(first, c) {
            continue;
        }
        let start = from + offset;
        if first_is_word && hay[..start].chars().next_back().is_some_and(is_word_char) {
            continue;
        }
        let mut rest = hay[start..].char_indices();
        let mut end = start;
        let matched = needle.chars().all(|n| match rest.next() {
            Some((j, c)) if same(n, c) => {
                end = start + j + c.len_utf8();
                true
            }
            _ => false,
        });
        if matched && !(last_is_word && hay[end..].chars().next().is_some_and(is_word_char)) {
            return Some((start, end));
        }
    }
    None
}

/// Whether `hay` contains the lower-case `needle` on word boundaries.
#[must_use]
pub fn contains_phrase(hay: &str, needle: &str) -> bool {
    find_phrase(hay, needle, 0).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_end_at_terminators_and_line_breaks_but_not_inside_numbers() {
        assert_eq!(
            sentences("I teach. It costs 3.5 hours!? Yes\nA list item\n\n  "),
            ["I teach.", "It costs 3.5 hours!?", "Yes", "A list item"]
        );
        assert_eq!(
            sentences("He said \"go.\" Then left."),
            ["He said \"go.\"", "Then left."]
        );
    }

    #[test]
    fn wide_terminators_split_text_written_without_spaces() {
        assert_eq!(
            sentences("我喜欢教书。我也喜欢读书！"),
            ["我喜欢教书。", "我也喜欢读书！"]
        );
        assert_eq!(
            sentences("אני אוהב ללמד. זה חשוב לי"),
            ["אני אוהב ללמד.", "זה חשוב לי"]
        );
    }

    #[test]
    fn joined_sentences_split_back_into_the_same_pieces() {
        let parts = ["First line", "Second one.", "第三。", "Fourth?"];
        assert_eq!(sentences(&join_sentences(&parts)), parts);
    }

    #[test]
    fn words_keep_inner_apostrophes_and_report_offsets() {
        let text = "I’m 'quoted' don't-stop";
        let got = words(text);
        assert_eq!(
            got,
            [(0, "I’m"), (7, "quoted"), (15, "don't"), (21, "stop")]
        );
        for (at, w) in got {
            assert!(text[at..].starts_with(w));
        }
    }

    #[test]
    fn cutting_respects_characters_words_and_clusters() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("one two three four", 12), "one two…");
        assert_eq!(cut("🌱🌱🌱🌱", 3), "🌱🌱…");
        // A family emoji is one cluster of joined characters: never cut after a joiner.
        let family = "👩\u{200D}👩\u{200D}👧";
        let cut_family = cut(&format!("{family}{family}"), 4);
        assert!(!cut_family.contains("\u{200D}…"), "{cut_family:?}");
        // Flags are pairs of regional indicators.
        let flags = "🇩🇪🇫🇷🇯🇵";
        let cut_flags = cut(flags, 4);
        let kept = cut_flags.trim_end_matches(ELLIPSIS).chars().count();
        assert_eq!(kept % 2, 0, "{cut_flags:?}");
        // A combining accent stays with its letter.
        let accented = "e\u{301}e\u{301}e\u{301}";
        let cut_accented = cut(accented, 4);
        assert!(!cut_accented.trim_end_matches(ELLIPSIS).ends_with('e'));
    }

    #[test]
    fn cutting_by_words_marks_what_was_left_out() {
        assert_eq!(cut_words("a b c d", 2, 100), "a b…");
        assert_eq!(cut_words("a b", 2, 100), "a b");
        assert_eq!(cut_words("一二三四五六", 3, 4), "一二三…");
    }

    #[test]
    fn phrases_are_found_on_word_boundaries_whatever_the_case_or_apostrophe() {
        assert_eq!(find_phrase("I’D ADD this", "i'd add", 0), Some((0, 9)));
        assert_eq!(find_phrase("mustard", "must", 0), None);
        assert_eq!(
            find_phrase("my near‑term goal", "near-term", 0),
            Some((3, 14))
        );
        assert!(contains_phrase("Correction: yes", "correction:"));
        assert!(!contains_phrase("homework", "work"));
    }

    #[test]
    fn content_words_skip_stop_words_short_words_and_numbers() {
        let got = content_words("I really love the 2024 garden and its BEES");
        let got: Vec<_> = got.into_iter().collect();
        assert_eq!(got, ["bees", "garden", "love"]);
    }
}
