//! The Enneagram lexicon and the scoring that picks a type from the answers: a fixed, documented
//! word list per type, matched on whole words, with the `drives` answer weighted highest and a
//! deterministic tie-break. docs/offline-engine.md explains the same rules to the person.
//!
//! Pattern notation: words are separated by spaces and must follow each other in the answer;
//! `a|b` accepts either word; a trailing `*` accepts any word starting with the stem
//! (`achiev*` matches "achieve", "achieving", "achievement"). Matching is case-insensitive and
//! typographic apostrophes count as plain ones.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use domain::discovery::{ExtractionInput, PromptKey};

use super::text::{normalize, words};

/// Points for a keyword: a word that leans toward the type.
pub const KEYWORD_POINTS: u32 = 1;
/// Points for a pressure reaction: how someone reacts under stress tells types apart better than
/// what they value, so these count double.
pub const PRESSURE_POINTS: u32 = 2;
/// Weight of the `drives` answer: it is the prompt that asks what drives the person and how they
/// react under pressure, the two things the Enneagram is about.
pub const DRIVES_WEIGHT: u32 = 3;
/// Weight of the love, strength, mission and vocation answers: they hint at a type, no more.
/// The goal answers are not scored (they describe plans, not motives).
pub const OTHER_WEIGHT: u32 = 1;
/// The type chosen when no word of the lexicon occurs at all. Its triad (head) derives the
/// gentlest coaching defaults (reflective style, questions over directives, biweekly), which fits
/// a person the engine could not read; among the head types, Five ("wants to understand") makes
/// the weakest claim about feelings and fears. The profile says it can be corrected before
/// affirming by answering again.
pub const DEFAULT_TYPE: u8 = 5;

/// Words that cancel the match right after them ("I don't worry", "I avoid confrontation").
const NEGATORS: &[&str] = &[
    "not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't",
    "can't", "cannot", "won't", "hardly", "without", "nor", "avoid", "avoids", "avoided",
    "avoiding",
];

/// The word list of one type.
#[derive(Debug)]
pub struct TypeLexicon {
    pub enneagram_type: u8,
    /// What the type is known for, in a few words (used by the coach and the docs).
    pub gist: &'static str,
    pub keywords: &'static [&'static str],
    pub pressure: &'static [&'static str],
}

/// The lexicon, type 1 to 9.
#[rustfmt::skip]
pub static LEXICON: [TypeLexicon; 9] = [
    TypeLexicon {
        enneagram_type: 1,
        gist: "a drive to make things right and better",
        keywords: &[
            "right", "rightly", "improv*", "correct*", "standard*", "principl*", "perfect*",
            "ethic*", "integrity", "mistake*", "error|errors", "quality", "proper|properly",
            "order|orderly", "disciplin*", "moral*", "rule|rules", "wrong", "detail*",
            "fix|fixing",
        ],
        pressure: &["critic*", "irritat*", "resent*", "perfectionis*", "rigid*", "judg*"],
    },
    TypeLexicon {
        enneagram_type: 2,
        gist: "a drive to care for and support people",
        keywords: &[
            "help|helps|helped|helping|helpful|helper", "care|cares|cared|caring|caregiv*",
            "needed", "love|loves|loved|loving", "support|supports|supporting|supportive",
            "give|gives|giving|giver", "generous*", "kind|kindness", "appreciat*",
            "relationship*", "warm|warmth", "nurtur*", "friend|friends|friendship*", "others",
            "serve|serving|service", "heart|hearts", "compassion*", "empath*",
        ],
        pressure: &[
            "people pleas*", "please|pleasing everyone|others|people",
            "take|taking care of everyone|others", "neglect|neglecting my own|myself",
            "say|saying yes", "unappreciat*", "overgiv*", "needy", "clingy",
            "put|putting others first",
        ],
    },
    TypeLexicon {
        enneagram_type: 3,
        gist: "a drive to achieve and to make things work",
        keywords: &[
            "achiev*", "succe*", "goal|goals", "win|wins|winning|winner|winners", "image",
            "efficien*", "accomplish*", "ambiti*", "recogni*", "status", "perform*",
            "result|results", "admir*", "excel*", "productiv*", "career|careers", "competit*",
            "impress*", "best", "progress*", "driven", "milestone*", "reputation",
        ],
        pressure: &[
            "work|working harder", "push|pushing through", "keep|keeping going", "workaholi*",
            "focus|focusing on results|tasks|task|goals", "get|getting it done",
            "look|looking good", "double|doubling down",
        ],
    },
    TypeLexicon {
        enneagram_type: 4,
        gist: "a drive to find meaning and to express who you are",
        keywords: &[
            "unique*", "authentic*", "feel|feels|feeling|feelings|felt", "express*",
            "meaning*", "identity", "creat*", "beaut*", "deep|deeply|depth", "emotion*",
            "individual*", "original*", "art|arts|artist*", "soul*", "longing", "special",
            "different", "poet*", "imagin*", "inner",
        ],
        pressure: &[
            "misunderstood", "moody|moods", "melanchol*", "envy|envious", "jealous*",
            "nobody understands", "dramati*", "sad|sadness",
        ],
    },
    TypeLexicon {
        enneagram_type: 5,
        gist: "a drive to understand how things work",
        keywords: &[
            "understand*", "knowledge*", "research*",
            "think|thinks|thinking|thinker|thought|thoughts", "privacy", "private",
            "competen*", "learn*", "curio*", "analy*", "idea|ideas", "theor*", "observ*",
            "expert*", "insight*", "figure|figuring out", "master|mastery|mastering",
            "study|studies|studying", "read|reading|reads|reader", "logic*", "system|systems",
            "information", "science|scientific", "facts", "puzzle*", "complex*",
        ],
        pressure: &[
            "withdraw*", "retreat*", "go|goes|going|went quiet", "alone", "detach*",
            "pull|pulling|pulled away|back", "isolat*", "hole|holing up",
            "need|needing space", "my head",
        ],
    },
    TypeLexicon {
        enneagram_type: 6,
        gist: "a drive to build security and trust",
        keywords: &[
            "secur*", "loyal*", "trust*", "prepar*", "safe*", "responsib*", "commit*",
            "reliab*", "dependab*", "cautio*", "duty", "team|teams", "stable|stability",
            "certain|certainty", "risk|risks", "plan ahead", "guidance", "belong*",
        ],
        pressure: &[
            "worr*", "anxi*", "doubt*", "worst case|cases|scenario*", "overthink*",
            "second guess*", "reassur*", "suspicio*", "panic*", "fear|fears|afraid|scared",
            "nervous*", "what could go wrong",
        ],
    },
    TypeLexicon {
        enneagram_type: 7,
        gist: "a drive toward freedom, variety and new experiences",
        keywords: &[
            "fun", "adventur*", "option|options", "freedom|free", "excit*", "new",
            "plan|plans|planning", "explor*", "travel*", "variety", "experienc*",
            "possibilit*", "enjoy*", "spontane*", "opportunit*", "joy|joyful",
            "play|playful|playing", "optimis*", "future", "energy|energetic", "laugh*",
        ],
        pressure: &[
            "distract*", "stay|staying|keep|keeping busy", "keep|keeping it light",
            "bright side", "escap*", "restless*", "bored|boredom|boring",
            "next thing|adventure|project|idea", "move|moving on", "scatter*",
            "avoid|avoiding pain",
        ],
    },
    TypeLexicon {
        enneagram_type: 8,
        gist: "a drive to be strong and to protect what matters",
        keywords: &[
            "control*", "strong|stronger|strongest", "protect*", "challeng*", "power*",
            "direct|directly|directness", "justice", "injustice",
            "lead|leads|leading|leader|leaders|leadership", "tough*", "decisiv*",
            "independen*", "boss", "assert*", "defend*", "honest|honesty", "fair|fairness",
            "courage*", "action", "intens*",
        ],
        pressure: &[
            "take|takes|took|taking charge|control|over|command", "in charge",
            "push|pushing|pushed back", "confront*", "fight|fighting|fought back|for",
            "anger|angry", "stand|standing my ground|up", "forceful*", "blunt*", "dominat*",
            "steamroll*",
        ],
    },
    TypeLexicon {
        enneagram_type: 9,
        gist: "a drive toward peace and harmony",
        keywords: &[
            "peace*", "harmon*", "calm*", "comfort*", "together*", "easygoing", "easy going",
            "relax*", "accept*", "balance*", "gentle*", "patien*", "mediat*", "unity",
            "get|getting along", "steady", "flow",
        ],
        pressure: &[
            "avoid|avoiding|avoided conflict*|confrontation*|arguments|fights",
            "hate|dislike conflict*", "keep|keeping the peace", "go|going|went along", "numb*",
            "zone|zoning|zoned out", "procrastinat*", "check|checking|checked out",
            "shut|shutting down|off", "stubborn*", "tune|tuning out", "disengag*",
            "smooth|smoothing things over",
        ],
    },
];

/// Words an answer does not count because its own question asked for them: everyone answers
/// "what you love" with "I love...", and "which people do you care about helping" with "help".
fn echoes(answer: PromptKey) -> &'static [&'static str] {
    match answer {
        PromptKey::Love => &[
            "love", "loves", "loved", "loving", "enjoy", "enjoys", "enjoyed", "enjoying",
        ],
        PromptKey::Mission => &[
            "help", "helps", "helped", "helping", "care", "cares", "cared", "caring", "need",
            "needs", "needed",
        ],
        _ => &[],
    }
}

/// One match of the lexicon in an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub answer: PromptKey,
    /// The lexicon entry that matched.
    pub entry: &'static str,
    /// The words of the answer it matched, as written.
    pub matched: String,
    /// Points before the answer's weight.
    pub points: u32,
}

/// How one type scored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeScore {
    pub enneagram_type: u8,
    /// Points from the `drives` answer, before weighting.
    pub drives: u32,
    /// Points from the love, strength, mission and vocation answers, before weighting.
    pub others: u32,
    pub hits: Vec<Hit>,
}

impl TypeScore {
    /// `drives × DRIVES_WEIGHT + others × OTHER_WEIGHT`.
    #[must_use]
    pub const fn total(&self) -> u32 {
        self.drives * DRIVES_WEIGHT + self.others * OTHER_WEIGHT
    }
}

/// The scores of all nine types and the type chosen from them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDecision {
    /// Types 1 to 9, in order.
    pub scores: Vec<TypeScore>,
    pub chosen: u8,
    /// No word of the lexicon occurred: `chosen` is [`DEFAULT_TYPE`].
    pub defaulted: bool,
}

/// Scores the answers and picks the type: the highest total wins; on a tie the higher `drives`
/// score; then the lower type number (an arbitrary but fixed order, so the same answers always
/// give the same type). With no match at all, [`DEFAULT_TYPE`].
#[must_use]
pub fn decide(input: &ExtractionInput) -> TypeDecision {
    let answers = [
        (PromptKey::Drives, input.drives.as_str()),
        (PromptKey::Love, input.love.as_str()),
        (PromptKey::Strength, input.strength.as_str()),
        (PromptKey::Mission, input.mission.as_str()),
        (PromptKey::Vocation, input.vocation.as_str()),
    ];
    let mut scores: Vec<TypeScore> = LEXICON
        .iter()
        .map(|lexicon| TypeScore {
            enneagram_type: lexicon.enneagram_type,
            drives: 0,
            others: 0,
            hits: Vec::new(),
        })
        .collect();
    for (answer, text) in answers {
        let tokens = words(text);
        let normalized: Vec<String> = tokens.iter().map(|(_, w)| normalize(w)).collect();
        for (entries, score) in COMPILED.iter().zip(scores.iter_mut()) {
            for hit in score_answer(entries, answer, text, &tokens, &normalized) {
                if answer == PromptKey::Drives {
                    score.drives += hit.points;
                } else {
                    score.others += hit.points;
                }
                score.hits.push(hit);
            }
        }
    }
    let best = scores
        .iter()
        .filter(|s| s.total() > 0)
        .max_by_key(|s| (s.total(), s.drives, std::cmp::Reverse(s.enneagram_type)));
    let (chosen, defaulted) = match best {
        Some(s) => (s.enneagram_type, false),
        None => (DEFAULT_TYPE, true),
    };
    TypeDecision {
        scores,
        chosen,
        defaulted,
    }
}

/// The type `text` reads as on its own, as a drives answer, when the reading is clear: some
/// word of the lexicon matched and one type scores strictly more than every other. `None` when
/// nothing matched or two types tie for the lead (the type rule then leaves the choice to the
/// model, `domain::discovery::type_rule`).
#[must_use]
pub fn clear_reading(text: &str) -> Option<u8> {
    let decision = decide(&ExtractionInput {
        love: String::new(),
        strength: String::new(),
        mission: String::new(),
        vocation: String::new(),
        drives: text.to_owned(),
        near_term_goal: None,
        long_term_goal: None,
    });
    if decision.defaulted {
        return None;
    }
    let mut totals: Vec<u32> = decision.scores.iter().map(TypeScore::total).collect();
    totals.sort_unstable_by(|a, b| b.cmp(a));
    (totals[0] > totals[1]).then_some(decision.chosen)
}

/// One lexicon entry, split once into its words and their alternatives.
struct Compiled {
    entry: &'static str,
    points: u32,
    /// Per word of the entry: its alternatives as `(text, is_stem)`.
    words: Vec<Vec<(&'static str, bool)>>,
}

/// The lexicon split into [`Compiled`] entries, per type, pressure reactions first. Split once:
/// scoring a 10,000-character answer tries every entry at every word.
static COMPILED: LazyLock<Vec<Vec<Compiled>>> = LazyLock::new(|| {
    LEXICON
        .iter()
        .map(|lexicon| {
            let entries = lexicon
                .pressure
                .iter()
                .map(|e| (*e, PRESSURE_POINTS))
                .chain(lexicon.keywords.iter().map(|e| (*e, KEYWORD_POINTS)));
            entries
                .map(|(entry, points)| Compiled {
                    entry,
                    points,
                    words: entry
                        .split(' ')
                        .map(|word| {
                            word.split('|')
                                .map(|alt| match alt.strip_suffix('*') {
                                    Some(stem) => (stem, true),
                                    None => (alt, false),
                                })
                                .collect()
                        })
                        .collect(),
                })
                .collect()
        })
        .collect()
});

/// The hits of one type in one answer. Pressure reactions are matched first; a word counts at
/// most once per type, so "take control" is one reaction, not also the keyword "control".
fn score_answer(
    entries: &[Compiled],
    answer: PromptKey,
    text: &str,
    tokens: &[(usize, &str)],
    normalized: &[String],
) -> Vec<Hit> {
    // Where each first character occurs: an entry is only tried where its first word can start.
    let mut by_first: BTreeMap<char, Vec<usize>> = BTreeMap::new();
    for (i, w) in normalized.iter().enumerate() {
        if let Some(c) = w.chars().next() {
            by_first.entry(c).or_default().push(i);
        }
    }
    let mut used = vec![false; normalized.len()];
    let mut hits = Vec::new();
    for compiled in entries {
        let len = compiled.words.len();
        let firsts: BTreeSet<char> = compiled.words[0]
            .iter()
            .filter_map(|(alt, _)| alt.chars().next())
            .collect();
        let starts: BTreeSet<usize> = firsts
            .iter()
            .filter_map(|c| by_first.get(c))
            .flatten()
            .copied()
            .collect();
        let mut free_from = 0;
        for i in starts {
            if i < free_from || i + len > normalized.len() {
                continue;
            }
            let span = i..i + len;
            let fits = compiled
                .words
                .iter()
                .zip(&normalized[span.clone()])
                .all(|(alts, w)| word_matches(alts, w));
            let taken = used[span.clone()].iter().any(|u| *u);
            let echoed = normalized[span.clone()]
                .iter()
                .any(|w| echoes(answer).contains(&w.as_str()));
            let negated = i > 0 && NEGATORS.contains(&normalized[i - 1].as_str());
            if fits && !taken && !echoed && !negated {
                used[span.clone()].iter_mut().for_each(|u| *u = true);
                let (first, _) = tokens[i];
                let (last_at, last) = tokens[span.end - 1];
                hits.push(Hit {
                    answer,
                    entry: compiled.entry,
                    matched: text[first..last_at + last.len()].to_owned(),
                    points: compiled.points,
                });
                free_from = span.end;
            }
        }
    }
    hits
}

fn word_matches(alternatives: &[(&str, bool)], word: &str) -> bool {
    alternatives.iter().any(|(alt, stem)| {
        if *stem {
            word.starts_with(alt)
        } else {
            word == *alt
        }
    })
}

/// Whether one pattern word (`a|b`, `stem*`) accepts one normalized word.
#[cfg(test)]
fn token_matches(pattern: &str, word: &str) -> bool {
    pattern.split('|').any(|alt| match alt.strip_suffix('*') {
        Some(stem) => word.starts_with(stem),
        None => word == alt,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drives(text: &str) -> ExtractionInput {
        ExtractionInput {
            love: "Long walks.".into(),
            strength: "Cooking.".into(),
            mission: "Clean rivers.".into(),
            vocation: "Bookkeeping.".into(),
            drives: text.into(),
            near_term_goal: None,
            long_term_goal: None,
        }
    }

    fn score(decision: &TypeDecision, t: u8) -> &TypeScore {
        &decision.scores[usize::from(t - 1)]
    }

    #[test]
    fn a_clear_reading_needs_a_match_and_a_single_leader() {
        assert_eq!(
            clear_reading("When I'm stressed I withdraw and need space alone."),
            Some(5)
        );
        assert_eq!(
            clear_reading("Under pressure I take care of everyone else first."),
            Some(2)
        );
        assert_eq!(
            clear_reading("It depends on the day."),
            None,
            "nothing matched"
        );
        // One keyword each for 8 ("control") and 6 ("trust"): a tie, so no reading.
        assert_eq!(clear_reading("Control. Trust."), None);
    }

    #[test]
    fn the_lexicon_lists_the_nine_types_in_order_without_duplicate_entries() {
        for (i, lexicon) in LEXICON.iter().enumerate() {
            assert_eq!(usize::from(lexicon.enneagram_type), i + 1);
            let mut all: Vec<_> = lexicon.keywords.iter().chain(lexicon.pressure).collect();
            let n = all.len();
            all.sort();
            all.dedup();
            assert_eq!(all.len(), n, "type {}", lexicon.enneagram_type);
        }
    }

    #[test]
    fn the_documentation_lists_every_entry_and_the_weights() {
        let doc = include_str!("../../../../docs/offline-engine.md");
        for lexicon in &LEXICON {
            for entry in lexicon.keywords.iter().chain(lexicon.pressure) {
                let cell = format!("`{}`", entry.replace('|', "\\|"));
                assert!(doc.contains(&cell), "{cell} is not documented");
            }
            assert!(doc.contains(lexicon.gist));
        }
        assert_eq!((KEYWORD_POINTS, PRESSURE_POINTS), (1, 2));
        assert_eq!((DRIVES_WEIGHT, OTHER_WEIGHT, DEFAULT_TYPE), (3, 1, 5));
        for negator in NEGATORS {
            assert!(doc.contains(&format!("`{negator}`")), "{negator}");
        }
    }

    #[test]
    fn stems_match_prefixes_and_plain_words_match_exactly() {
        assert!(token_matches("achiev*", "achievement"));
        assert!(token_matches("win|wins", "wins"));
        assert!(!token_matches("win|wins", "window"));
        assert!(!token_matches("care|caring", "career"));
    }

    #[test]
    fn a_pressure_phrase_counts_double_and_only_once() {
        let d = decide(&drives("Under pressure I take control."));
        let eight = score(&d, 8);
        assert_eq!(eight.drives, PRESSURE_POINTS);
        assert_eq!(eight.hits.len(), 1);
        assert_eq!(eight.hits[0].matched, "take control");
        assert_eq!(d.chosen, 8);
    }

    #[test]
    fn a_negated_word_does_not_count() {
        let d = decide(&drives("I don't worry and I never panic."));
        assert_eq!(score(&d, 6).drives, 0);
        let d = decide(&drives("I avoid confrontation."));
        assert_eq!(score(&d, 8).drives, 0);
        assert_eq!(d.chosen, 9);
    }

    #[test]
    fn words_that_echo_the_question_do_not_count_in_that_answer() {
        let mut input = drives("Nothing in particular.");
        input.love = "I love love and enjoy it.".into();
        input.mission = "Helping people who need care.".into();
        let d = decide(&input);
        assert_eq!(score(&d, 2).others, 0);
        assert_eq!(score(&d, 7).others, 0);
    }

    #[test]
    fn the_drives_answer_outweighs_the_others() {
        let mut input = drives("I want to understand everything.");
        input.love = "Freedom, adventure and fun.".into(); // 3 points for type 7, weight 1
        let d = decide(&input);
        assert_eq!(score(&d, 5).total(), 3);
        assert_eq!(score(&d, 7).total(), 3);
        // Equal totals: the higher drives score wins.
        assert_eq!(d.chosen, 5);
    }

    #[test]
    fn equal_totals_and_drives_fall_to_the_lower_type_number() {
        let d = decide(&drives("Peace and justice."));
        assert_eq!(score(&d, 8).total(), score(&d, 9).total());
        assert_eq!(d.chosen, 8);
        assert!(!d.defaulted);
    }

    #[test]
    fn no_match_at_all_gives_the_default_type() {
        let d = decide(&drives("Blue."));
        assert!(d.defaulted);
        assert_eq!(d.chosen, DEFAULT_TYPE);
        let d = decide(&drives("我喜欢安静。"));
        assert_eq!(d.chosen, DEFAULT_TYPE);
    }
}
