//! A person's message made readable for the coach's reader: chat shorthand spelled out ("ppl",
//! "wanna", "w/"), chat markers and emoji set aside ("lol", "tbh", "😅"), bullets turned into
//! sentence breaks, and spelling slips in the words the reader relies on forgiven ("actualy",
//! "mision"). The person's own content words are never respelled: only a word the reader knows
//! can be the target of a correction, and never when the message's word is one the profile uses.

use strsim::damerau_levenshtein;

use super::text::{normalize, words};

/// Chat shorthand and the words it stands for. Whole words only, case-insensitive.
const SHORTHAND: &[(&str, &str)] = &[
    ("u", "you"),
    ("ur", "your"),
    ("r", "are"),
    ("ppl", "people"),
    ("pls", "please"),
    ("plz", "please"),
    ("thx", "thanks"),
    ("thnx", "thanks"),
    ("ty", "thanks"),
    ("bc", "because"),
    ("cuz", "because"),
    ("coz", "because"),
    ("cos", "because"),
    ("abt", "about"),
    ("tho", "though"),
    ("thru", "through"),
    ("yr", "year"),
    ("yrs", "years"),
    ("mo", "months"),
    ("mos", "months"),
    ("wk", "week"),
    ("wks", "weeks"),
    ("hr", "hour"),
    ("hrs", "hours"),
    ("wanna", "want to"),
    ("gonna", "going to"),
    ("gotta", "have to"),
    ("kinda", "kind of"),
    ("sorta", "sort of"),
    ("dunno", "don't know"),
    ("idk", "I don't know"),
    ("im", "I'm"),
    ("ive", "I've"),
    ("id", "I'd"),
    ("dont", "don't"),
    ("cant", "can't"),
    ("didnt", "didn't"),
    ("doesnt", "doesn't"),
    ("isnt", "isn't"),
    ("arent", "aren't"),
    ("wasnt", "wasn't"),
    ("havent", "haven't"),
    ("hasnt", "hasn't"),
    ("couldnt", "couldn't"),
    ("wouldnt", "wouldn't"),
    ("shouldnt", "shouldn't"),
    ("thats", "that's"),
    ("theres", "there's"),
    ("whats", "what's"),
    ("youre", "you're"),
    ("theyre", "they're"),
    ("teh", "the"),
    ("w", "with"),
    ("wo", "without"),
    ("esp", "especially"),
];

/// Chat markers that say nothing about the person: dropped.
const MARKERS: &[&str] = &[
    "lol", "lmao", "rofl", "haha", "hahaha", "hehe", "tbh", "imo", "imho", "ngl", "btw", "fyi",
    "xd", "omg", "jk",
];

/// The words the reader's rules rely on: a word of the message one slip away from one of these
/// (and not a word of the profile's) is read as it. Words one slip from a common word of their
/// own ("vocation" from "vacation", "change" from "chance") are left out on purpose.
const READER_WORDS: &[&str] = &[
    "actually",
    "really",
    "mission",
    "strength",
    "strengths",
    "overlap",
    "forget",
    "forgot",
    "replace",
    "instead",
    "anymore",
    "together",
    "connects",
    "because",
    "something",
    "someday",
    "eventually",
    "christmas",
    "birthday",
    "mention",
    "another",
    "correction",
    "interesting",
    "passion",
    "probably",
    "definitely",
    "honestly",
    "basically",
];

/// The message as the reader reads it. `known` are words the person has already used (the
/// profile's), which are never respelled.
#[must_use]
pub fn clean(message: &str, known: &[String]) -> String {
    let plain: String = message
        .chars()
        .map(|c| match c {
            '’' | '‘' | '`' | '´' => '\'',
            '“' | '”' | '„' => '"',
            '•' | '·' => '-',
            _ => c,
        })
        .filter(|c| kept_char(*c))
        .collect();
    // Abbreviations' full stops end no sentence.
    let plain = ["esp.", "etc.", "e.g.", "i.e.", "vs."]
        .iter()
        .fold(plain, |text, abbreviation| {
            text.replace(abbreviation, abbreviation.trim_end_matches('.'))
        });
    let lines: Vec<String> = plain.lines().map(debullet).collect();
    let joined = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .map(with_terminator)
        .collect::<Vec<_>>()
        .join(" ");
    let spelled = respell(&joined, known);
    tidy_spaces(&spelled)
}

/// Letters, digits, spaces and the punctuation people write with; emoji and other symbols go.
fn kept_char(c: char) -> bool {
    c.is_alphanumeric()
        || c.is_whitespace()
        || super::text::is_extending(c) && !matches!(c as u32, 0xFE0F | 0x200D | 0x1F3FB..=0x1F3FF)
        || ".,;:!?'\"-–—()/&%$+=><#@*€£".contains(c)
}

/// A line without its leading bullet; a bullet inside the line (" - ") ends a sentence.
fn debullet(line: &str) -> String {
    let line = line
        .trim()
        .trim_start_matches(['-', '*', '–', '—'])
        .trim_start();
    line.replace(" - ", ". ")
        .replace(" – ", ". ")
        .replace(" + ", " and ")
        .replace(" = ", " is ")
        .replace(" > ", " over ")
        .replace("w/o ", "without ")
        .replace("w/ ", "with ")
        .replace(" @ ", " at ")
}

fn with_terminator(line: &str) -> String {
    if line.ends_with(['.', '!', '?', ':', ';']) {
        line.to_owned()
    } else {
        format!("{line}.")
    }
}

/// Shorthand spelled out, markers dropped, slips in the reader's words forgiven.
fn respell(text: &str, known: &[String]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut from = 0;
    for (at, word) in words(text) {
        out.push_str(&text[from..at]);
        from = at + word.len();
        let key = normalize(word);
        if MARKERS.contains(&key.as_str()) {
            continue;
        }
        if let Some((_, full)) = SHORTHAND.iter().find(|(short, _)| *short == key) {
            // "w" and "wo" only as the shorthand "w/" leaves them: before a slash.
            if matches!(key.as_str(), "w" | "wo") && !text[from..].starts_with('/') {
                out.push_str(word);
                continue;
            }
            if matches!(key.as_str(), "w" | "wo") {
                from += 1;
            }
            out.push_str(&match_case(word, full));
            continue;
        }
        match slip_of(&key, known) {
            Some(right) => out.push_str(&match_case(word, right)),
            None => out.push_str(word),
        }
    }
    out.push_str(&text[from..]);
    out
}

/// The reader's word `word` is one slip away from, when exactly one is and the person has not
/// used `word` elsewhere.
fn slip_of(word: &str, known: &[String]) -> Option<&'static str> {
    let length = word.chars().count();
    if length < 4 || !word.chars().all(char::is_alphabetic) || READER_WORDS.contains(&word) {
        return None;
    }
    if known.iter().any(|k| k == word) {
        return None;
    }
    let mut found = READER_WORDS.iter().filter(|right| {
        let distance = damerau_levenshtein(word, right);
        // Not an inflection of the word ("goals" is no slip of "goal").
        distance == 1 && right.len() >= 5 && !right.starts_with(word) && !word.starts_with(*right)
    });
    let first = found.next()?;
    found.next().is_none().then_some(*first)
}

/// `full` with the first letter's case of `like`.
fn match_case(like: &str, full: &str) -> String {
    if like.chars().next().is_some_and(char::is_uppercase) {
        super::text::capitalize_first(full)
    } else {
        full.to_owned()
    }
}

fn tidy_spaces(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(joined.len());
    for c in joined.chars() {
        if matches!(c, '.' | ',' | '!' | '?' | ';' | ':') && out.ends_with(' ') {
            out.pop();
        }
        out.push(c);
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(message: &str) -> String {
        clean(message, &["bikes".to_owned()])
    }

    #[test]
    fn shorthand_is_spelled_out_and_markers_set_aside() {
        assert_eq!(
            read("lol ppl ask me all teh time tbh"),
            "people ask me all the time."
        );
        assert_eq!(
            read("im gonna fix u a bike w/ my kid"),
            "I'm going to fix you a bike with my kid."
        );
        assert_eq!(read("Thx!! 😅🙏"), "Thanks!!");
    }

    #[test]
    fn bullets_become_sentences() {
        assert_eq!(
            read("- remove the demo - no time + no budget"),
            "remove the demo. no time and no budget."
        );
    }

    #[test]
    fn slips_in_the_readers_words_are_forgiven_but_not_the_persons_own() {
        assert_eq!(
            read("actualy my mision is kids"),
            "actually my mission is kids."
        );
        assert_eq!(read("my strenght is welding"), "my strength is welding.");
        // A word the person used stays; a word nothing is near stays.
        assert_eq!(clean("mision trip", &["mision".to_owned()]), "mision trip.");
        assert_eq!(read("grilling on sundays"), "grilling on sundays.");
        assert_eq!(read("bikes"), "bikes.");
    }
}
