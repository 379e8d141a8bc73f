//! Answers to questions about the profile itself: what the type rests on, what each part
//! means, whether a person reads the messages, whether anything is locked. A question about the
//! person's own life is not answered here: it is theirs.

use crate::offline::text::find_phrase;

/// What a question asks about, by the words it uses, first match wins.
const TOPICS: &[(&[&str], &str)] = &[
    (
        &["difference"],
        "What you love is what absorbs you, hobby or work; what you can be paid for is what \
         someone would pay you to do. They may be the same thing, or not at all.",
    ),
    (
        &[
            "real person",
            "a person",
            "a bot",
            "an ai",
            "ai or",
            "llm",
            "computer",
            "human",
            "robot",
        ],
        "I am the service's offline coach: fixed rules that run inside the service, not a person \
         and not a language model. Nothing you write here leaves the server.",
    ),
    (
        &[
            "locked",
            "change this",
            "change it later",
            "later",
            "export",
            "share",
        ],
        "Nothing is locked until you affirm your profile, and you can reopen it after that. You \
         can edit any part yourself at any time, and every change is kept as a revision.",
    ),
    (
        &[
            "overlap",
            "narrative",
            "how it all fits",
            "where it all meets",
        ],
        "Where it all meets (the overlap) says what comes back across what you love, what you \
         are good at, what the world needs from you and what you can be paid for.",
    ),
    (
        &["mission", "world needs"],
        "What the world needs (your mission) is whom or what you want to help. It need not be \
         grand or charity: the people you want to make things better for are enough.",
    ),
    (
        &["love"],
        "What you love is what absorbs you so that you lose track of time, hobby or work.",
    ),
    (
        &["vocation", "paid"],
        "What you can be paid for is the work someone would pay you to do, now or later.",
    ),
    (
        &["goal"],
        "Your goals are only the ones you state, in your words: one for the next 6-12 months, \
         one for the next 3-5 years. I never set one for you.",
    ),
];

/// Words that ask about the type.
const TYPE_WORDS: &[&str] = &["type", "enneagram", "triad", "framework", "personality"];

/// The answer to a question about the profile, or `None` when it asks about something else.
/// `type_line` says the person's type in words.
#[must_use]
pub fn answer(question: &str, type_line: &str) -> Option<String> {
    if TYPE_WORDS
        .iter()
        .any(|w| find_phrase(question, w, 0).is_some())
    {
        return Some(format!(
            "{type_line} The type is an Enneagram type, read from your answer about what drives \
             you and how you react under stress; it stays as your answers give it."
        ));
    }
    TOPICS
        .iter()
        .find(|(words, _)| words.iter().any(|w| find_phrase(question, w, 0).is_some()))
        .map(|(_, answer)| (*answer).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_about_the_profile_are_answered_with_what_it_means() {
        assert!(
            answer("what's the overlap supposed to mean", "Type 5.")
                .unwrap()
                .contains("comes back")
        );
        assert!(
            answer("are you a real person or a bot", "")
                .unwrap()
                .contains("not a person")
        );
        assert!(
            answer("which type am I", "Type 5.")
                .unwrap()
                .starts_with("Type 5.")
        );
        assert_eq!(answer("how do I find time for my garden", ""), None);
    }
}
