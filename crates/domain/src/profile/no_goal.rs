//! No-goal answers: "not sure yet", "no idea", "keine Ahnung", "todavía no"... An answer to a goal
//! prompt that says only that there is no goal (yet) states no goal, so its summary is `null`
//! whatever an engine writes from it (docs/api.md, "Provenance"). The rule is pure and shared by every
//! engine, because the extraction guard applies it.
//!
//! An answer is a no-goal answer when, once normalised (case, accents, apostrophes, punctuation
//! and whitespace), it holds at least one no-goal phrase and every other word of it is one of a
//! short list of filler words ("honestly", "just", "for now", "euh", "ehrlich gesagt"), or when
//! it holds no word at all ("", "-", "?"). A single word outside
//! both lists, such as "bakery" in "I don't know how yet, but I want to open a bakery", makes
//! the answer a goal: a real goal is never thrown away because it hesitates first.

use std::collections::HashSet;
use std::sync::LazyLock;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Phrases that say "no goal (yet)", in the languages the service meets most: English, Spanish,
/// French, German, Portuguese, Italian and Dutch. Written naturally; normalised like the answer.
#[rustfmt::skip]
const NO_GOAL_PHRASES: &[&str] = &[
    // English
    "not sure", "unsure", "no idea", "have no idea", "no clue", "not a clue", "nothing",
    "nothing specific", "nothing in particular", "nothing planned", "none", "n/a", "na",
    "not applicable", "no", "nope", "maybe later", "later", "i don't know", "don't know",
    "do not know", "dunno", "idk", "not yet", "no goal", "no goals", "no such goal",
    "no specific goal", "no clear goal", "have no goal", "have no goals", "no plan", "no plans",
    "haven't decided", "have not decided", "not decided", "undecided", "tbd", "to be decided",
    "to be determined", "can't say", "cannot say", "hard to say", "who knows", "we'll see",
    "pass", "skip", "not really", "haven't thought about it", "have not thought about it",
    "no answer", "don't have one", "don't have any", "still figuring it out",
    "figuring it out",
    // Spanish
    "no sé", "no lo sé", "no sabría decir", "todavía no", "aún no", "ni idea", "no tengo idea",
    "no tengo ni idea", "ninguna idea", "nada", "más tarde", "más adelante", "ninguno",
    "ninguna", "no estoy seguro", "no estoy segura", "no lo tengo claro", "no tengo claro",
    "no tengo meta", "no tengo metas", "sin meta", "sin metas", "ninguna meta",
    "no tengo objetivo", "no tengo objetivos", "sin objetivo", "ningún objetivo", "ya veremos",
    // French
    "je ne sais pas", "je sais pas", "ne sais pas", "sais pas", "aucune idée", "pas d'idée",
    "pas encore", "pas sûr", "pas sûre", "pas certain", "pas certaine", "je ne suis pas sûr",
    "je ne suis pas sûre", "rien", "plus tard", "aucun", "aucune", "aucun objectif",
    "pas d'objectif", "je n'ai pas d'objectif", "je n'en ai pas", "aucun but", "pas de but",
    "sans objectif", "on verra",
    // German
    "keine Ahnung", "k.A.", "noch nicht", "weiß nicht", "weiß ich nicht", "ich weiß nicht",
    "ich weiß es nicht", "weiß noch nicht", "weiß ich noch nicht", "ich weiß es noch nicht",
    "nichts", "später", "keins", "keine", "keines", "kein Ziel",
    "keine Ziele", "nicht sicher", "bin mir nicht sicher", "ich bin nicht sicher", "unsicher",
    "unklar", "mal sehen", "mal schauen",
    // Portuguese
    "não sei", "ainda não", "não faço ideia", "nenhuma ideia", "sem ideia", "mais tarde",
    "nenhum", "nenhuma", "não tenho certeza", "sem objetivo", "nenhum objetivo",
    "não tenho objetivo",
    // Italian
    "non lo so", "non so", "non ancora", "ancora no", "nessuna idea", "non ne ho idea",
    "niente", "più tardi", "nessuno", "nessuna", "non sono sicuro", "non sono sicura", "boh",
    "nessun obiettivo", "vedremo",
    // Dutch
    "geen idee", "weet ik niet", "ik weet het niet", "weet niet", "nog niet", "niets", "niks",
    "geen", "geen doel", "geen doelen", "niet zeker", "we zien wel",
];

/// Words that carry no goal of their own around a no-goal phrase: hesitations, pronouns,
/// "honestly", "for now", "yet", "still" and their equivalents. Never a verb or a noun a goal
/// could be made of.
#[rustfmt::skip]
const FILLERS: &[&str] = &[
    // English
    "i", "i'm", "i've", "me", "am", "is", "it", "it's", "that", "this", "there", "the", "a",
    "honestly", "really", "just", "yet", "still", "so", "well", "um", "umm", "uh", "uhm",
    "hmm", "hm", "erm", "er", "ok", "okay", "oh", "right", "now", "at", "moment", "for",
    "currently", "sorry", "and", "or", "but", "to", "be", "honest", "totally", "quite",
    "very", "time", "being", "point", "maybe", "perhaps", "probably", "sure", "yes",
    // Spanish
    "pues", "bueno", "la", "verdad", "yo", "por", "ahora", "de", "momento", "todavía", "aún",
    "y", "o", "pero", "eh", "mm", "sinceramente", "realmente", "quizás", "quizá", "tal", "vez",
    // French
    "euh", "bon", "ben", "bah", "pour", "l'instant", "le", "vraiment", "honnêtement",
    "encore", "et", "ou", "mais", "je", "moi", "peut-être",
    // German
    "ehrlich", "gesagt", "ich", "bin", "mir", "noch", "momentan", "gerade", "derzeit",
    "zurzeit", "also", "äh", "ähm", "und", "oder", "aber", "jetzt", "im", "vielleicht", "echt",
    "wirklich",
    // Portuguese
    "eu", "enquanto", "agora", "ainda", "e", "mas", "talvez",
    // Italian
    "io", "per", "ora", "adesso", "ma", "forse", "onestamente",
    // Dutch
    "ik", "nu", "nog", "eerlijk", "en", "of", "maar", "misschien", "eigenlijk", "op", "dit",
];

/// The phrases and fillers, normalised once.
struct Vocabulary {
    phrases: Vec<Vec<String>>,
    fillers: HashSet<String>,
}

static VOCABULARY: LazyLock<Vocabulary> = LazyLock::new(|| Vocabulary {
    phrases: NO_GOAL_PHRASES
        .iter()
        .map(|p| words(p))
        .filter(|p| !p.is_empty())
        .collect(),
    fillers: FILLERS.iter().flat_map(|f| words(f)).collect(),
});

/// Whether a goal answer states no goal: blank, punctuation only, or at least one no-goal phrase
/// and otherwise nothing but filler words ("Honestly? Not sure yet.", "keine Ahnung", "Todavía
/// no, la verdad"). Fillers alone ("to be honest") say nothing either way and are left to the
/// other goal rules.
#[must_use]
pub fn states_no_goal(answer: &str) -> bool {
    let vocabulary = &*VOCABULARY;
    let words = words(answer);
    if words.is_empty() {
        return true;
    }
    // fillers[i] / phrased[i]: the first i words are all fillers / are phrases and fillers with
    // at least one phrase.
    let mut fillers = vec![false; words.len() + 1];
    let mut phrased = vec![false; words.len() + 1];
    fillers[0] = true;
    for i in 0..words.len() {
        if !(fillers[i] || phrased[i]) {
            continue;
        }
        if vocabulary.fillers.contains(&words[i]) {
            fillers[i + 1] |= fillers[i];
            phrased[i + 1] |= phrased[i];
        }
        for phrase in &vocabulary.phrases {
            if words[i..].starts_with(phrase) {
                phrased[i + phrase.len()] = true;
            }
        }
    }
    phrased[words.len()]
}

/// The words of `text`, compared loosely: compatibility-decomposed with accents dropped, lower
/// case, "ß" as "ss", apostrophes removed inside words ("don't" = "dont", "j'ai" = "jai") and any
/// other character that is not a letter or a digit read as a space.
fn words(text: &str) -> Vec<String> {
    let mut folded = String::with_capacity(text.len());
    for c in text.nfkd().filter(|c| !is_combining_mark(*c)) {
        match c {
            '\'' | '’' | 'ʼ' | '`' | '´' => {}
            'ß' => folded.push_str("ss"),
            c if c.is_alphanumeric() => folded.extend(c.to_lowercase()),
            _ => folded.push(' '),
        }
    }
    folded.split_whitespace().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_that_state_no_goal_are_recognised_in_every_language() {
        for answer in [
            "not sure yet",
            "Not sure yet.",
            "NOT   SURE\tyet!!",
            "no idea",
            "No idea, honestly.",
            "nothing yet",
            "maybe later",
            "n/a",
            "N/A",
            "I don't know",
            "I don’t know.",
            "i dont know",
            "none",
            "None.",
            "not yet",
            "no goal",
            "No goal for now.",
            "Honestly? I'm not sure yet.",
            "Um, I really have no idea right now",
            "idk",
            "tbd",
            "-",
            "?",
            "...",
            "",
            "   ",
            "We'll see.",
            // Spanish
            "no sé",
            "No se",
            "todavía no",
            "Todavia no, la verdad.",
            "ni idea",
            "Pues no lo sé todavía",
            // French
            "aucune idée",
            "Aucune idee.",
            "pas encore",
            "Je ne sais pas encore.",
            "Euh, rien pour l'instant",
            // German
            "keine Ahnung",
            "Keine Ahnung, ehrlich gesagt.",
            "noch nicht",
            "Ich weiß es noch nicht.",
            "ich weiss nicht",
            "Noch nichts.",
            "k.A.",
            // Portuguese, Italian, Dutch
            "Não sei ainda",
            "non lo so",
            "Boh.",
            "geen idee",
            "Nog niet.",
        ] {
            assert!(states_no_goal(answer), "{answer:?} states no goal");
        }
    }

    #[test]
    fn real_goals_that_hesitate_are_kept() {
        for answer in [
            "I don't know how yet, but I want to open a bakery by next spring",
            "Not sure yet, but probably learning Spanish",
            "Run a marathon",
            "Nothing matters more than finishing my degree.",
            "No more late shifts: a day job by summer.",
            "Later this year, move to Lisbon.",
            "Marathon.",
            "Todavía no lo sé, pero quiero abrir una panadería.",
            "Je ne sais pas encore, mais je veux apprendre le piano.",
            "Keine Ahnung wie, aber ich will ein Café eröffnen.",
            // Fillers alone state nothing either way.
            "To be honest.",
            "Be there for it.",
            "Noch nicht ganz klar: ein eigenes Atelier.",
            "2027",
        ] {
            assert!(!states_no_goal(answer), "{answer:?} is a goal");
        }
    }

    #[test]
    fn words_are_folded_for_case_accents_apostrophes_and_punctuation() {
        assert_eq!(words("Ich weiß es NICHT."), ["ich", "weiss", "es", "nicht"]);
        assert_eq!(words("Don’t—know…  Aún"), ["dont", "know", "aun"]);
        assert_eq!(words("ｎｏ ｉｄｅａ"), ["no", "idea"], "full-width letters");
        assert_eq!(
            words("je n'ai pas d'objectif"),
            ["je", "nai", "pas", "dobjectif"]
        );
    }
}
