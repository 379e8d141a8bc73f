//! Matching prepared once: the folded keys of an entry, computed when the entry is written and
//! stored beside it, and a person's rules compiled into a [`RuleSet`] that finds the first rule
//! by position meeting those keys in a few lookups, whatever the number of rules. Re-classifying
//! an entry then folds nothing and tries no rule one by one.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use aho_corasick::AhoCorasick;

use crate::foundation::Foundation;
use crate::integration::folding::fold;
use crate::integration::rules::{MatchKind, Rule};

/// Between folded tags, and around them: tags hold no control characters, so a tag rule can be
/// found in the stored text as `\u{1f}tag\u{1f}` (also by SQL).
pub const TAG_SEPARATOR: char = '\u{1f}';

/// What the rules compare of an entry, folded once when it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchKeys {
    /// The folded label, when there is one.
    pub label: Option<String>,
    /// The folded tags as `\u{1f}a\u{1f}b\u{1f}`, or empty without tags.
    pub tags: String,
    /// The folded external id, only where folding changes it (most ids are already folded);
    /// see [`MatchKeys::id_or`].
    pub id: Option<String>,
}

impl MatchKeys {
    #[must_use]
    pub fn of(external_task_id: &str, label: Option<&str>, tags: &[String]) -> Self {
        let folded_id = fold(external_task_id);
        Self {
            label: label.map(fold),
            tags: folded_tags(tags),
            id: (folded_id != external_task_id).then_some(folded_id),
        }
    }

    /// The folded external id: the stored one, else the id itself.
    #[must_use]
    pub fn id_or<'a>(&'a self, external_task_id: &'a str) -> &'a str {
        self.id.as_deref().unwrap_or(external_task_id)
    }
}

/// Tags folded and joined as stored in [`MatchKeys::tags`].
fn folded_tags(tags: &[String]) -> String {
    if tags.is_empty() {
        return String::new();
    }
    let mut joined = String::from(TAG_SEPARATOR);
    for tag in tags {
        joined.push_str(&fold(tag));
        joined.push(TAG_SEPARATOR);
    }
    joined
}

/// How a tag rule's text is found inside [`MatchKeys::tags`].
#[must_use]
pub fn tag_needle(folded_tag: &str) -> String {
    format!("{TAG_SEPARATOR}{folded_tag}{TAG_SEPARATOR}")
}

/// A person's rules, compiled for first-match-by-position. Each rule is known by its rank
/// (0 first); a lookup per kind finds the lowest rank that matches.
#[derive(Debug, Clone)]
pub struct RuleSet {
    /// The foundation of each rank.
    foundations: Vec<Foundation>,
    equals: HashMap<String, usize>,
    tags: HashMap<String, usize>,
    prefixes: HashMap<String, usize>,
    /// The distinct byte lengths of the prefixes, shortest first.
    prefix_lengths: Vec<usize>,
    /// All `label_contains` texts at once, each with the lowest rank that has it.
    contains: Option<(AhoCorasick, Vec<usize>)>,
}

impl RuleSet {
    /// `rules` may come in any order: they are ranked by position (then age, then id), as
    /// [`crate::integration::first_match`] ranks them.
    #[must_use]
    pub fn new(rules: &[Rule]) -> Self {
        let mut ranked: Vec<&Rule> = rules.iter().collect();
        ranked.sort_by_key(|r| (r.position, r.created_at, r.id));
        let mut set = Self {
            foundations: ranked.iter().map(|r| r.foundation).collect(),
            equals: HashMap::new(),
            tags: HashMap::new(),
            prefixes: HashMap::new(),
            prefix_lengths: Vec::new(),
            contains: None,
        };
        let mut contains: HashMap<&str, usize> = HashMap::new();
        for (rank, rule) in ranked.iter().enumerate() {
            let folded = rule.matcher.folded();
            let first = |map: &mut HashMap<String, usize>| {
                if let Entry::Vacant(slot) = map.entry(folded.to_owned()) {
                    slot.insert(rank);
                }
            };
            match rule.matcher.kind() {
                MatchKind::LabelEquals => first(&mut set.equals),
                MatchKind::Tag => first(&mut set.tags),
                MatchKind::ExternalTaskIdPrefix => first(&mut set.prefixes),
                MatchKind::LabelContains => {
                    contains.entry(folded).or_insert(rank);
                }
            }
        }
        set.prefix_lengths = set.prefixes.keys().map(String::len).collect();
        set.prefix_lengths.sort_unstable();
        set.prefix_lengths.dedup();
        if !contains.is_empty() {
            let (texts, ranks): (Vec<&str>, Vec<usize>) = contains.into_iter().unzip();
            // Patterns are at most 500 characters and 500 of them: far inside the automaton's
            // limits, so building it cannot fail in practice; if it did, no contains rule would
            // match, which `first_match` in the tests would catch.
            set.contains = AhoCorasick::new(&texts).ok().map(|ac| (ac, ranks));
        }
        set
    }

    /// The foundation of the first rule by position that the entry meets; `None` leaves it
    /// unmapped.
    #[must_use]
    pub fn decide(&self, keys: &MatchKeys, external_task_id: &str) -> Option<Foundation> {
        let mut best: Option<usize> = None;
        let mut consider = |rank: Option<&usize>| {
            if let Some(&rank) = rank {
                best = Some(best.map_or(rank, |b| b.min(rank)));
            }
        };
        if let Some(label) = keys.label.as_deref() {
            consider(self.equals.get(label));
            if let Some((automaton, ranks)) = &self.contains {
                for found in automaton.find_overlapping_iter(label) {
                    consider(ranks.get(found.pattern().as_usize()));
                }
            }
        }
        if !self.tags.is_empty() {
            for tag in keys.tags.split(TAG_SEPARATOR).filter(|t| !t.is_empty()) {
                consider(self.tags.get(tag));
            }
        }
        let id = keys.id_or(external_task_id);
        for &length in &self.prefix_lengths {
            match id.get(..length) {
                Some(head) => consider(self.prefixes.get(head)),
                None if length > id.len() => break,
                None => {}
            }
        }
        best.and_then(|rank| self.foundations.get(rank).copied())
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;
    use crate::ids::{RuleId, UserId};
    use crate::integration::rules::{EntryFacts, Pattern, RuleMatch, first_match};

    fn rule(position: u32, kind: MatchKind, pattern: &str, foundation: Foundation) -> Rule {
        Rule {
            id: RuleId::new(),
            user_id: UserId::new(),
            position,
            matcher: RuleMatch::new(kind, Pattern::non_blank(pattern).unwrap()),
            foundation,
            created_at: datetime!(2026-11-26 10:00 UTC),
        }
    }

    #[test]
    fn keys_are_folded_once_and_the_id_kept_only_where_folding_changes_it() {
        let keys = MatchKeys::of(
            "toggl:42",
            Some("Planning the CAFE\u{301} menu"),
            &["Client-Work".to_owned(), "deep".to_owned()],
        );
        assert_eq!(keys.label.as_deref(), Some("planning the café menu"));
        assert_eq!(keys.tags, "\u{1f}client-work\u{1f}deep\u{1f}");
        assert_eq!(keys.id, None);
        assert_eq!(keys.id_or("toggl:42"), "toggl:42");
        let upper = MatchKeys::of("Toggl:42", None, &[]);
        assert_eq!(upper.id.as_deref(), Some("toggl:42"));
        assert_eq!(upper.tags, "");
        assert_eq!(upper.label, None);
        assert!(keys.tags.contains(&tag_needle("deep")));
        assert!(!keys.tags.contains(&tag_needle("dee")));
    }

    /// A small deterministic generator (xorshift), so the comparison below covers many shapes
    /// without a dependency.
    struct Noise(u64);

    impl Noise {
        fn next(&mut self, below: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            usize::try_from(self.0 % below as u64).unwrap()
        }
    }

    #[test]
    fn the_compiled_set_decides_as_first_match_does() {
        const WORDS: [&str; 8] = [
            "Review",
            "review ",
            "Café",
            "CAFE\u{301}",
            "gym",
            "Deep",
            "é",
            "x",
        ];
        let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
        for round in 0..200 {
            let rules: Vec<Rule> = (0..noise.next(12))
                .map(|_| {
                    let kind = MatchKind::ALL[noise.next(4)];
                    let mut pattern = WORDS[noise.next(WORDS.len())].to_owned();
                    if noise.next(2) == 0 {
                        pattern.push_str(WORDS[noise.next(WORDS.len())]);
                    }
                    let pattern = if pattern.trim().is_empty() {
                        "x".to_owned()
                    } else {
                        pattern
                    };
                    let position = u32::try_from(1 + noise.next(6)).unwrap();
                    rule(position, kind, &pattern, Foundation::ALL[noise.next(6)])
                })
                .collect();
            let set = RuleSet::new(&rules);
            for _ in 0..50 {
                let mut label = String::new();
                for _ in 0..noise.next(4) {
                    label.push_str(WORDS[noise.next(WORDS.len())]);
                }
                let tags: Vec<String> = (0..noise.next(3))
                    .map(|_| WORDS[noise.next(WORDS.len())].trim().to_owned())
                    .filter(|t| !t.is_empty())
                    .collect();
                let id = format!("{}{}", WORDS[noise.next(WORDS.len())], noise.next(100));
                let label = (noise.next(5) > 0).then_some(label);
                let facts = EntryFacts {
                    external_task_id: &id,
                    task_label: label.as_deref(),
                    tags: &tags,
                };
                let keys = MatchKeys::of(&id, label.as_deref(), &tags);
                assert_eq!(
                    set.decide(&keys, &id),
                    first_match(&rules, &facts),
                    "round {round}: {facts:?} with {rules:#?}"
                );
            }
        }
    }

    #[test]
    fn the_lowest_position_wins_across_kinds() {
        let rules = [
            rule(3, MatchKind::LabelContains, "code", Foundation::Vocation),
            rule(1, MatchKind::Tag, "family", Foundation::Love),
            rule(
                2,
                MatchKind::ExternalTaskIdPrefix,
                "toggl:",
                Foundation::Strength,
            ),
            rule(
                4,
                MatchKind::LabelEquals,
                "code review",
                Foundation::Mission,
            ),
        ];
        let set = RuleSet::new(&rules);
        let decide = |id: &str, label: &str, tags: &[&str]| {
            let tags: Vec<String> = tags.iter().map(|t| (*t).to_owned()).collect();
            set.decide(&MatchKeys::of(id, Some(label), &tags), id)
        };
        assert_eq!(
            decide("toggl:1", "Code review", &["Family"]),
            Some(Foundation::Love)
        );
        assert_eq!(
            decide("TOGGL:1", "Code review", &[]),
            Some(Foundation::Strength)
        );
        assert_eq!(
            decide("cal:1", "Code review", &[]),
            Some(Foundation::Vocation)
        );
        assert_eq!(decide("cal:1", "Lunch", &[]), None);
        assert_eq!(
            RuleSet::new(&[]).decide(&MatchKeys::of("a", Some("b"), &[]), "a"),
            None
        );
    }
}
