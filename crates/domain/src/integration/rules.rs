//! Mapping rules (docs/api.md, "Mapping rules and unmapped time"): a tracker often knows a label, a
//! tag or an id, not a foundation; a person's rules, in position order, give an entry sent
//! without a foundation the foundation of the first rule that matches it. Matching is
//! case-insensitive on NFC text, so "Café" written either way, in any case, is one word.

use std::num::NonZeroU32;

use time::OffsetDateTime;

use crate::error::RepoError;
use crate::foundation::Foundation;
use crate::ids::{RuleId, UserId};
use crate::integration::folding::fold;
use crate::text::{Text, TextError};

/// At most this many rules per person.
pub const MAX_RULES_PER_USER: usize = 500;
/// At most this many tags per entry.
pub const MAX_TAGS: usize = 20;
/// A tag is 1 to this many characters.
pub const TAG_MAX_CHARS: usize = 100;
/// A rule's text is 1 to this many characters (a label is at most 500).
pub const PATTERN_MAX_CHARS: usize = 500;

/// A rule's pattern as the person wrote it (not blank, no control characters).
pub type Pattern = Text<PATTERN_MAX_CHARS>;

/// What a rule looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchKind {
    /// The label contains the text.
    LabelContains,
    /// The label is the text.
    LabelEquals,
    /// One of the tags is the text.
    Tag,
    /// The tracker's id of the entry starts with the text.
    ExternalTaskIdPrefix,
}

impl MatchKind {
    pub const ALL: [Self; 4] = [
        Self::LabelContains,
        Self::LabelEquals,
        Self::Tag,
        Self::ExternalTaskIdPrefix,
    ];

    /// The contract's key in `{"match": {"<key>": "..."}}`.
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::LabelContains => "label_contains",
            Self::LabelEquals => "label_equals",
            Self::Tag => "tag",
            Self::ExternalTaskIdPrefix => "external_task_id_prefix",
        }
    }

    #[must_use]
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.key() == key)
    }
}

/// A rule's condition: a kind and its text, kept as written and in the folded form it is
/// compared in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMatch {
    kind: MatchKind,
    pattern: Pattern,
    folded: String,
}

impl RuleMatch {
    #[must_use]
    pub fn new(kind: MatchKind, pattern: Pattern) -> Self {
        let folded = fold(pattern.as_str());
        Self {
            kind,
            pattern,
            folded,
        }
    }

    #[must_use]
    pub const fn kind(&self) -> MatchKind {
        self.kind
    }

    /// The text as the person wrote it.
    #[must_use]
    pub fn pattern(&self) -> &str {
        self.pattern.as_str()
    }

    /// The text in the form it is compared in ([`fold`]).
    #[must_use]
    pub fn folded(&self) -> &str {
        &self.folded
    }

    /// Whether `entry` meets the condition.
    #[must_use]
    pub fn matches(&self, entry: &EntryFacts<'_>) -> bool {
        match self.kind {
            MatchKind::LabelContains => entry
                .task_label
                .is_some_and(|label| fold(label).contains(&self.folded)),
            MatchKind::LabelEquals => entry
                .task_label
                .is_some_and(|label| fold(label) == self.folded),
            MatchKind::Tag => entry.tags.iter().any(|tag| fold(tag) == self.folded),
            MatchKind::ExternalTaskIdPrefix => {
                fold(entry.external_task_id).starts_with(&self.folded)
            }
        }
    }
}

/// A person's rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub id: RuleId,
    pub user_id: UserId,
    /// Lower first; the first rule that matches decides.
    pub position: u32,
    pub matcher: RuleMatch,
    pub foundation: Foundation,
    pub created_at: OffsetDateTime,
}

/// A rule as the person writes it (`POST` and `PUT /integration/rules`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRule {
    pub matcher: RuleMatch,
    pub foundation: Foundation,
    /// Where it goes, 1 being first; the rules at and after it move down one. `None` appends a
    /// new rule and keeps a replaced one where it is; past the end means the end.
    pub position: Option<NonZeroU32>,
}

/// Why a rule change was not made. Whatever the reason, nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum RuleChangeError {
    #[error("at most {MAX_RULES_PER_USER} rules per person")]
    TooMany,
    #[error("no such rule")]
    NotFound,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Where a rule lands among `count` rules (itself included) when `requested` is asked for:
/// the end when nothing or a place past the end is asked for.
#[must_use]
pub fn placed_at(requested: Option<NonZeroU32>, count: u32) -> u32 {
    requested.map_or(count, |p| p.get().min(count)).max(1)
}

/// What rules look at in an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryFacts<'a> {
    pub external_task_id: &'a str,
    pub task_label: Option<&'a str>,
    pub tags: &'a [String],
}

/// The foundation of the first rule, in position order, that `entry` meets; `None` leaves it
/// unmapped. `rules` may come in any order. This is the rule written plainly: the service
/// decides with the compiled [`crate::integration::RuleSet`], which the tests and benches check
/// against it.
#[must_use]
pub fn first_match(rules: &[Rule], entry: &EntryFacts<'_>) -> Option<Foundation> {
    rules
        .iter()
        .filter(|rule| rule.matcher.matches(entry))
        .min_by_key(|rule| (rule.position, rule.created_at, rule.id))
        .map(|rule| rule.foundation)
}

/// Where an entry's foundation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MappedBy {
    /// The tracker sent it: rules never change it.
    Client,
    /// A rule gave it: rules decide it again whenever they change.
    Rule,
}

impl MappedBy {
    pub const ALL: [Self; 2] = [Self::Client, Self::Rule];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Client => "client",
            Self::Rule => "rule",
        }
    }

    #[must_use]
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.key() == key)
    }
}

/// An entry's tags: at most [`MAX_TAGS`], each 1-[`TAG_MAX_CHARS`] characters, without control
/// characters; a tag given twice (after folding) is kept once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tags(Vec<String>);

/// Tags that cannot be stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagsError {
    #[error("at most {MAX_TAGS} tags")]
    TooMany,
    #[error("tag {index}: {error}")]
    Tag { index: usize, error: TextError },
}

impl Tags {
    /// # Errors
    /// [`TagsError`] naming the first tag that is blank, too long or holds a control character.
    pub fn new(tags: impl IntoIterator<Item = String>) -> Result<Self, TagsError> {
        let mut kept: Vec<String> = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for (index, tag) in tags.into_iter().enumerate() {
            let tag = Text::<TAG_MAX_CHARS>::non_blank(tag.trim())
                .map_err(|error| TagsError::Tag { index, error })?;
            let folded = fold(tag.as_str());
            if !seen.contains(&folded) {
                seen.push(folded);
                kept.push(tag.as_str().to_owned());
            }
        }
        if kept.len() > MAX_TAGS {
            return Err(TagsError::TooMany);
        }
        Ok(Self(kept))
    }

    #[must_use]
    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

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

    fn entry<'a>(id: &'a str, label: Option<&'a str>, tags: &'a [String]) -> EntryFacts<'a> {
        EntryFacts {
            external_task_id: id,
            task_label: label,
            tags,
        }
    }

    #[test]
    fn each_kind_matches_case_insensitively_on_nfc_text() {
        let tags = vec!["Client-Work".to_owned(), "deep".to_owned()];
        // "Café" with a precomposed é, and the label with e + a combining acute accent.
        let decomposed = "Planning the CAFE\u{301} menu";
        let cases = [
            (MatchKind::LabelContains, "café", Some(decomposed), true),
            (MatchKind::LabelContains, "bakery", Some(decomposed), false),
            (MatchKind::LabelContains, "café", None, false),
            (
                MatchKind::LabelEquals,
                "planning the café menu",
                Some(decomposed),
                true,
            ),
            (MatchKind::LabelEquals, "planning", Some(decomposed), false),
            (MatchKind::Tag, "client-work", None, true),
            (MatchKind::Tag, "client", None, false),
            (MatchKind::ExternalTaskIdPrefix, "toggl:", None, true),
            (MatchKind::ExternalTaskIdPrefix, "clockify:", None, false),
        ];
        for (kind, pattern, label, expected) in cases {
            let r = rule(1, kind, pattern, Foundation::Vocation);
            assert_eq!(
                r.matcher.matches(&entry("TOGGL:123", label, &tags)),
                expected,
                "{kind:?} {pattern:?} on {label:?}"
            );
        }
    }

    #[test]
    fn the_first_rule_by_position_decides_and_no_match_leaves_it_unmapped() {
        let rules = [
            rule(3, MatchKind::LabelContains, "code", Foundation::Vocation),
            rule(1, MatchKind::Tag, "family", Foundation::Love),
            rule(2, MatchKind::LabelContains, "review", Foundation::Strength),
        ];
        let family = vec!["family".to_owned()];
        assert_eq!(
            first_match(&rules, &entry("x", Some("Code review"), &family)),
            Some(Foundation::Love)
        );
        assert_eq!(
            first_match(&rules, &entry("x", Some("Code review"), &[])),
            Some(Foundation::Strength)
        );
        assert_eq!(
            first_match(&rules, &entry("x", Some("Code"), &[])),
            Some(Foundation::Vocation)
        );
        assert_eq!(first_match(&rules, &entry("x", Some("Lunch"), &[])), None);
        assert_eq!(first_match(&[], &entry("x", Some("Code"), &[])), None);
    }

    #[test]
    fn tags_are_checked_trimmed_and_kept_once() {
        let tags = Tags::new(["deep".into(), " Deep ".into(), "client".into()]).unwrap();
        assert_eq!(tags.as_slice(), ["deep", "client"]);
        assert!(matches!(
            Tags::new(["ok".into(), "  ".into()]),
            Err(TagsError::Tag { index: 1, .. })
        ));
        assert!(matches!(
            Tags::new(["x".repeat(TAG_MAX_CHARS + 1)]),
            Err(TagsError::Tag { index: 0, .. })
        ));
        assert!(matches!(
            Tags::new(["a\u{7}b".into()]),
            Err(TagsError::Tag { index: 0, .. })
        ));
        let many: Vec<String> = (0..=MAX_TAGS).map(|n| format!("t{n}")).collect();
        assert_eq!(Tags::new(many), Err(TagsError::TooMany));
        assert_eq!(
            Tags::new(Vec::<String>::new()).unwrap().as_slice(),
            [] as [String; 0]
        );
    }

    #[test]
    fn a_rule_lands_where_asked_or_at_the_end() {
        let at = |p: u32| NonZeroU32::new(p);
        assert_eq!(placed_at(None, 4), 4);
        assert_eq!(placed_at(at(1), 4), 1);
        assert_eq!(placed_at(at(3), 4), 3);
        assert_eq!(placed_at(at(9), 4), 4);
        assert_eq!(placed_at(None, 1), 1);
    }

    #[test]
    fn kinds_and_origins_read_back_from_their_contract_keys() {
        for kind in MatchKind::ALL {
            assert_eq!(MatchKind::from_key(kind.key()), Some(kind));
        }
        for by in MappedBy::ALL {
            assert_eq!(MappedBy::from_key(by.key()), Some(by));
        }
        assert_eq!(MatchKind::from_key("regex"), None);
    }
}
