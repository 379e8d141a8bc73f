//! Summaries that mirror: the four Ikigai summaries and the overlap narrative say the person's
//! own sentences back in the second person (their core clause, pronouns turned, filler dropped,
//! set in a short frame when they are a bare phrase); the goal summaries quote the goal as
//! written. Nothing here writes content of its own: every content word comes from the answers.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use domain::discovery::ExtractionInput;
use domain::profile::EditableField;

use super::frames::reflect_sentence;
use super::mirror::{is_english, lower_first, mirror};
use super::text::{
    ELLIPSIS, capitalize_first, content_words, cut, cut_words, is_content_word, join_sentences,
    normalize, sentences, without_terminator, words,
};

/// The longest quoted sentence; a longer one is cut (at a space) and ends with "…". Two of them
/// stay far below the 4,000-character cap of a profile field.
pub const SENTENCE_MAX_CHARS: usize = 1_000;
/// The longest key phrase quoted in the overlap narrative, in words and in characters.
pub const PHRASE_MAX_WORDS: usize = 12;
pub const PHRASE_MAX_CHARS: usize = 120;
/// A clause break shortens a long key phrase only after this many words.
pub const PHRASE_MIN_WORDS: usize = 4;
/// At most this many recurring words are named in the overlap narrative.
pub const RECURRING_MAX: usize = 5;
/// Recurring words are at least 4 and at most 40 characters long (longer "words" are runs of
/// text without spaces, not words).
const RECURRING_CHARS: std::ops::RangeInclusive<usize> = 4..=40;
/// Stands in for an answer with no text at all, so that a required field is never blank. The
/// service requires text for the first five prompts, so a person normally never sees it.
pub const NO_ANSWER: &str = "(no answer given)";

/// Words that the prompts themselves put in every answer: that they recur says nothing.
const PROMPT_WORDS: &[&str] = &[
    "love", "loves", "loved", "loving", "good", "world", "need", "needs", "paid", "pay", "work",
    "people", "help", "helping",
];

/// Opens the overlap narrative (with no content word of its own, so the narrative rests wholly on
/// the answers); the mirrored key phrases of the love, strength, mission and
/// vocation answers follow, in that order, separated by semicolons.
pub const OVERLAP_LEAD: &str = "All in all: ";
/// Introduces the words the person used in more than one of those four answers.
pub const RECURRING_LEAD: &str = " Again and again: ";

/// The four Ikigai parts, in the order of their answers (steps 1-4).
pub const IKIGAI: [EditableField; 4] = [
    EditableField::LoveSummary,
    EditableField::StrengthSummary,
    EditableField::MissionSummary,
    EditableField::VocationSummary,
];

/// The sentences of `answer` a summary quotes: the first sentence (the direct answer to the
/// prompt), plus the later sentence that adds the most content words the first one lacks (ties:
/// more content words, then the earlier sentence), when one adds any. In the answer's order.
#[must_use]
pub fn pick_sentences(answer: &str) -> Vec<&str> {
    let all = sentences(answer);
    let Some((first, rest)) = all.split_first() else {
        return Vec::new();
    };
    let known = content_words(first);
    let best = rest
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let found = content_words(s);
            let new = found.difference(&known).count();
            (new, found.len(), Reverse(i), *s)
        })
        .filter(|(new, ..)| *new > 0)
        .max_by_key(|(new, total, i, _)| (*new, *total, *i));
    match best {
        Some((.., s)) => vec![first, s],
        None => vec![*first],
    }
}

/// A summary of one answer: its picked sentences, verbatim, each cut to
/// [`SENTENCE_MAX_CHARS`]; [`NO_ANSWER`] when the answer holds no text.
#[must_use]
pub fn summary(answer: &str) -> String {
    let picked: Vec<String> = pick_sentences(answer)
        .into_iter()
        .map(|s| cut(s, SENTENCE_MAX_CHARS))
        .collect();
    if picked.is_empty() {
        NO_ANSWER.to_owned()
    } else {
        join_sentences(&picked)
    }
}

/// The summary of one Ikigai answer as a mirror: the sentences [`summary`] would quote, the
/// first set in `field`'s frame ([`reflect_sentence`]), a later one mirrored; each cut to
/// [`SENTENCE_MAX_CHARS`]. An answer not in English is quoted as [`summary`] quotes it;
/// [`NO_ANSWER`] when the answer holds no text.
#[must_use]
pub fn reflection(field: EditableField, answer: &str) -> String {
    if !is_english(answer) {
        // Only English is said back; another language is quoted as written.
        return summary(answer);
    }
    let picked: Vec<String> = pick_sentences(answer)
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let said = if i == 0 {
                reflect_sentence(field, s)
            } else {
                mirror(s)
            };
            cut(&said, SENTENCE_MAX_CHARS)
        })
        .collect();
    if picked.is_empty() {
        NO_ANSWER.to_owned()
    } else {
        join_sentences(&picked)
    }
}

/// A goal summary only for a goal the person stated (`None` stays `None`: a goal is never
/// invented), quoting it the way [`summary`] quotes an answer.
#[must_use]
pub fn goal_summary(goal: Option<&str>) -> Option<String> {
    goal.filter(|g| !g.trim().is_empty()).map(summary)
}

/// The key phrase of an answer: its sentence richest in content words (ties: the earlier one),
/// without its final punctuation, shortened by [`shorten_phrase`].
#[must_use]
pub fn key_phrase(answer: &str) -> Option<String> {
    let all = sentences(answer);
    let (_, best) = all
        .iter()
        .enumerate()
        .max_by_key(|(i, s)| (content_words(s).len(), Reverse(*i)))?;
    let bare = without_terminator(best);
    Some(shorten_phrase(if bare.is_empty() { best } else { bare }))
}

/// A phrase of at most [`PHRASE_MAX_WORDS`] words and [`PHRASE_MAX_CHARS`] characters: a longer
/// one ends at its last clause break (comma, semicolon, colon, dash) within that many words when
/// at least [`PHRASE_MIN_WORDS`] words come before it, else after that many words; either way
/// with "…".
#[must_use]
pub fn shorten_phrase(phrase: &str) -> String {
    if phrase.split_whitespace().count() <= PHRASE_MAX_WORDS {
        return cut(phrase, PHRASE_MAX_CHARS);
    }
    let mut seen = 0;
    let mut in_word = false;
    let mut clause_end = None;
    for (i, c) in phrase.char_indices() {
        if c.is_whitespace() {
            in_word = false;
            continue;
        }
        if !in_word {
            in_word = true;
            seen += 1;
            if seen > PHRASE_MAX_WORDS {
                break;
            }
        }
        if matches!(c, ',' | ';' | ':' | '—' | '–') && seen >= PHRASE_MIN_WORDS {
            clause_end = Some(i);
        }
    }
    match clause_end {
        Some(end) => {
            let mut out = phrase[..end].trim_end().to_owned();
            out.push(ELLIPSIS);
            cut(&out, PHRASE_MAX_CHARS)
        }
        None => cut_words(phrase, PHRASE_MAX_WORDS, PHRASE_MAX_CHARS),
    }
}

/// Content words that occur in more than one of `answers`, as first written: most answers first,
/// then in order of first appearance; at most [`RECURRING_MAX`].
#[must_use]
pub fn recurring_words<'a>(answers: &[&'a str]) -> Vec<&'a str> {
    // normalized word -> (answers it occurs in, first (answer, offset), first surface form)
    let mut seen: BTreeMap<String, (usize, (usize, usize), &'a str)> = BTreeMap::new();
    for (n, answer) in answers.iter().enumerate() {
        let mut here = std::collections::BTreeSet::new();
        for (at, word) in words(answer) {
            let key = normalize(word);
            if !is_content_word(&key)
                || !RECURRING_CHARS.contains(&key.chars().count())
                || PROMPT_WORDS.contains(&key.as_str())
                || !here.insert(key.clone())
            {
                continue;
            }
            seen.entry(key)
                .and_modify(|e| e.0 += 1)
                .or_insert((1, (n, at), word));
        }
    }
    let mut recurring: Vec<_> = seen
        .into_values()
        .filter(|(count, ..)| *count > 1)
        .collect();
    recurring.sort_by_key(|(count, first, _)| (Reverse(*count), *first));
    recurring
        .into_iter()
        .take(RECURRING_MAX)
        .map(|(.., word)| word)
        .collect()
}

/// The overlap narrative: [`OVERLAP_LEAD`], then the key phrase of each of the four answers
/// said back in its part's frame (an answer not in English is quoted as written), one short
/// sentence each, so that each rests on its own answer; then the words that recur across them,
/// when there are any.
#[must_use]
pub fn overlap(input: &ExtractionInput) -> String {
    let answers = [
        input.love.as_str(),
        input.strength.as_str(),
        input.mission.as_str(),
        input.vocation.as_str(),
    ];
    let phrases: Vec<String> = IKIGAI
        .iter()
        .zip(answers)
        .enumerate()
        .map(|(i, (field, answer))| {
            // Each ends as a sentence: its own "…" when the phrase was shortened, else ".".
            let said = match key_phrase(answer) {
                Some(phrase) if is_english(answer) => reflect_sentence(*field, &phrase),
                Some(phrase) => format!("“{phrase}”."),
                None => format!("{NO_ANSWER}."),
            };
            if i == 0 {
                lower_first(&said)
            } else {
                capitalize_first(&said)
            }
        })
        .collect();
    let mut out = format!("{OVERLAP_LEAD}{}", phrases.join(" "));
    let recurring = recurring_words(&answers);
    if !recurring.is_empty() {
        out.push_str(RECURRING_LEAD);
        let quoted: Vec<String> = recurring.iter().map(|w| format!("“{w}”")).collect();
        out.push_str(&quoted.join(", "));
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_quotes_the_first_sentence_and_the_one_that_adds_the_most() {
        let answer = "I love teaching. It is fun. Explaining physics to curious teenagers \
                      lights me up. Yes.";
        assert_eq!(
            summary(answer),
            "I love teaching. Explaining physics to curious teenagers lights me up."
        );
    }

    #[test]
    fn a_single_sentence_or_word_is_quoted_whole() {
        assert_eq!(summary("Gardening"), "Gardening");
        assert_eq!(summary("  Woodwork.  "), "Woodwork.");
        assert_eq!(summary("🌱"), "🌱");
        assert_eq!(summary("   "), NO_ANSWER);
    }

    #[test]
    fn sentences_without_new_content_are_not_added() {
        assert_eq!(summary("Teaching kids. Teaching kids!"), "Teaching kids.");
    }

    #[test]
    fn a_very_long_sentence_is_cut_at_a_space_with_an_ellipsis() {
        let answer = "word ".repeat(2_000);
        let s = summary(&answer);
        assert!(s.chars().count() <= SENTENCE_MAX_CHARS);
        assert!(s.ends_with("word…"));
    }

    #[test]
    fn goal_summaries_exist_only_for_stated_goals() {
        assert_eq!(goal_summary(None), None);
        assert_eq!(goal_summary(Some("  ")), None);
        assert_eq!(
            goal_summary(Some("Run a marathon.")).as_deref(),
            Some("Run a marathon.")
        );
    }

    #[test]
    fn a_long_key_phrase_ends_at_a_clause_break_when_there_is_one() {
        assert_eq!(
            shorten_phrase(
                "There's something about bringing a dead thing back to life, hearing the first \
                 crackle"
            ),
            "There's something about bringing a dead thing back to life…"
        );
        assert_eq!(
            shorten_phrase(
                "one two three four five six seven eight nine ten eleven twelve thirteen"
            ),
            "one two three four five six seven eight nine ten eleven twelve…"
        );
        assert_eq!(shorten_phrase("Short, sweet"), "Short, sweet");
    }

    #[test]
    fn recurring_words_keep_their_first_spelling_and_skip_prompt_words() {
        let got = recurring_words(&[
            "Teaching Children and love.",
            "teaching, love",
            "children first. Teaching.",
            "nothing",
        ]);
        assert_eq!(got, ["Teaching", "Children"]);
    }

    #[test]
    fn the_overlap_narrative_says_each_key_phrase_back_in_its_frame() {
        let input = ExtractionInput {
            love: "Teaching kids to read.".into(),
            strength: "Patience with kids.".into(),
            mission: "Every child reads.".into(),
            vocation: "Primary school teacher.".into(),
            drives: String::new(),
            near_term_goal: None,
            long_term_goal: None,
        };
        assert_eq!(
            overlap(&input),
            "All in all: you love teaching kids to read. You are good at patience with kids. \
             You care about every child reads. Your work: primary school teacher. Again and \
             again: “kids”."
        );
    }

    #[test]
    fn an_ikigai_summary_mirrors_the_answer_instead_of_copying_it() {
        assert_eq!(
            reflection(
                EditableField::LoveSummary,
                "Honestly, I think what I really love is restoring old bikes. It is fun. My \
                 daughter helps me on Sundays."
            ),
            "You love restoring old bikes. Your daughter helps you on Sundays."
        );
        assert_eq!(
            reflection(EditableField::StrengthSummary, "Gardening"),
            "You are good at gardening."
        );
        assert_eq!(reflection(EditableField::LoveSummary, "   "), NO_ANSWER);
        assert_eq!(
            reflection(EditableField::LoveSummary, "Ich baue Möbel."),
            "Ich baue Möbel."
        );
    }
}
