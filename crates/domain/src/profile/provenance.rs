//! Provenance: the person's own words each profile field rests on (`sources`), and the check of
//! every quote against the stored text. Whatever an engine claims, a quote is kept only when it
//! is found in what the person wrote; what is stored is the span of their text, not the claim.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use super::EditableField;
use crate::discovery::Step;
use crate::ids::ReflectionMessageId;

/// The longest quote, in characters (the contract's 1-300).
pub const QUOTE_MAX_CHARS: usize = 300;
/// A goal summary needs a quote of at least this many words from its own step.
pub const GOAL_MIN_WORDS: usize = 3;
/// At most this many sources are kept per field (the first ones verified).
pub const SOURCES_PER_FIELD: usize = 8;

/// Where a quote was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceOrigin {
    /// An answer of the conversation.
    Step(Step),
    /// One of the person's reflection turns.
    Reflection(ReflectionMessageId),
}

/// A verified span of the person's own words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "SourceShape", into = "SourceShape")]
pub struct Source {
    pub origin: SourceOrigin,
    /// Verbatim from the stored text (after NFC), 1-[`QUOTE_MAX_CHARS`] characters.
    pub quote: String,
}

impl Source {
    /// The number of words of the quote (Unicode word boundaries, so that text without spaces
    /// between words counts too).
    #[must_use]
    pub fn words(&self) -> usize {
        self.quote.unicode_words().count()
    }
}

/// The contract's shape of a source: `{"step", "quote"}` or `{"reflection_message_id", "quote"}`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceShape {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    step: Option<Step>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reflection_message_id: Option<ReflectionMessageId>,
    quote: String,
}

impl TryFrom<SourceShape> for Source {
    type Error = String;
    fn try_from(shape: SourceShape) -> Result<Self, Self::Error> {
        let origin = match (shape.step, shape.reflection_message_id) {
            (Some(step), None) => SourceOrigin::Step(step),
            (None, Some(id)) => SourceOrigin::Reflection(id),
            _ => return Err("a source names exactly one of step and reflection_message_id".into()),
        };
        Ok(Self {
            origin,
            quote: shape.quote,
        })
    }
}

impl From<Source> for SourceShape {
    fn from(source: Source) -> Self {
        let (step, reflection_message_id) = match source.origin {
            SourceOrigin::Step(step) => (Some(step), None),
            SourceOrigin::Reflection(id) => (None, Some(id)),
        };
        Self {
            step,
            reflection_message_id,
            quote: source.quote,
        }
    }
}

/// The sources of every editable field. Serialized with all seven keys (an empty list where a
/// field rests on nothing quoted, as after a manual edit); missing keys read as empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources(BTreeMap<EditableField, Vec<Source>>);

impl Sources {
    /// The sources of one field (empty when none).
    #[must_use]
    pub fn get(&self, field: EditableField) -> &[Source] {
        self.0.get(&field).map_or(&[], Vec::as_slice)
    }

    /// Replaces the sources of one field.
    pub fn set(&mut self, field: EditableField, sources: Vec<Source>) {
        if sources.is_empty() {
            self.0.remove(&field);
        } else {
            self.0.insert(field, sources);
        }
    }

    /// Every field with its sources, in the contract's order.
    pub fn iter(&self) -> impl Iterator<Item = (EditableField, &[Source])> {
        EditableField::ALL.into_iter().map(|f| (f, self.get(f)))
    }

    /// How many quotes in all.
    #[must_use]
    pub fn count(&self) -> usize {
        self.0.values().map(Vec::len).sum()
    }
}

impl Serialize for Sources {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(EditableField::ALL.len()))?;
        for (field, sources) in self.iter() {
            map.serialize_entry(field.name(), sources)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Sources {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<EditableField, Vec<Source>>::deserialize(deserializer)?;
        Ok(Self(
            map.into_iter().filter(|(_, s)| !s.is_empty()).collect(),
        ))
    }
}

/// Text the quotes are checked against: one stored answer or reflection turn.
#[derive(Debug, Clone, Copy)]
pub struct Quotable<'a> {
    pub origin: SourceOrigin,
    pub text: &'a str,
}

/// Verifies a claimed quote: where `claimed` names a place, it is looked for there first, then
/// in every other text in order (an engine that names the wrong step still quoted the person;
/// the place stored is where the words are). Returns the verbatim span found, or `None` when
/// the quote is blank, longer than [`QUOTE_MAX_CHARS`], or not in any of the texts.
#[must_use]
pub fn verify(
    quote: &str,
    claimed: Option<SourceOrigin>,
    texts: &[Quotable<'_>],
) -> Option<Source> {
    let quote = quote.trim();
    let chars = quote.chars().count();
    if chars == 0 || chars > QUOTE_MAX_CHARS {
        return None;
    }
    let first = texts.iter().filter(|t| Some(t.origin) == claimed);
    let rest = texts.iter().filter(|t| Some(t.origin) != claimed);
    first.chain(rest).find_map(|t| {
        let span = locate(t.text, quote)?;
        (span.chars().count() <= QUOTE_MAX_CHARS).then_some(Source {
            origin: t.origin,
            quote: span,
        })
    })
}

/// Adds `source` to `list` unless it is already there or the list is full.
pub fn push_unique(list: &mut Vec<Source>, source: Source) {
    if list.len() < SOURCES_PER_FIELD && !list.contains(&source) {
        list.push(source);
    }
}

/// Whether a goal summary may be kept on these sources: at least one quotes
/// [`GOAL_MIN_WORDS`] words from the goal's own place (`origin`).
#[must_use]
pub fn supports_goal(sources: &[Source], origin: impl Fn(&SourceOrigin) -> bool) -> bool {
    sources
        .iter()
        .any(|s| origin(&s.origin) && s.words() >= GOAL_MIN_WORDS)
}

/// The span of `text` (after NFC) that `quote` matches when both are compared after Unicode NFC,
/// with runs of whitespace collapsed to one space, and case folded (lower case).
#[must_use]
pub fn locate(text: &str, quote: &str) -> Option<String> {
    let needle = Folded::of(quote.trim()).text;
    if needle.is_empty() {
        return None;
    }
    let text: String = text.nfc().collect();
    let hay = Folded::of(&text);
    let at = hay.text.find(&needle)?;
    let (start, _) = hay.origins[at];
    let (_, end) = hay.origins[at + needle.len() - 1];
    Some(text[start..end].trim().to_owned())
}

/// Text folded for comparison, with the span of the original each of its bytes comes from.
struct Folded {
    text: String,
    /// For each byte of `text`, the byte range of the original character it came from.
    origins: Vec<(usize, usize)>,
}

impl Folded {
    /// `s` in NFC is expected (a quote is normalized here; the stored text by the caller).
    fn of(s: &str) -> Self {
        let nfc: String = s.nfc().collect();
        let mut text = String::with_capacity(nfc.len());
        let mut origins = Vec::with_capacity(nfc.len());
        let mut in_space = false;
        for (i, c) in nfc.char_indices() {
            let span = (i, i + c.len_utf8());
            if c.is_whitespace() {
                if !in_space {
                    text.push(' ');
                    origins.push(span);
                }
                in_space = true;
                continue;
            }
            in_space = false;
            for lower in c.to_lowercase() {
                text.push(lower);
                origins.extend(std::iter::repeat_n(span, lower.len_utf8()));
            }
        }
        Self { text, origins }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(n: i64) -> SourceOrigin {
        SourceOrigin::Step(Step::new(n).unwrap())
    }

    #[test]
    fn a_quote_is_found_across_case_whitespace_and_normalization_and_stored_as_written() {
        let text = "I love  restoring old\nBicycles with my daughter. Café au lait, too.";
        assert_eq!(
            locate(text, "restoring old bicycles"),
            Some("restoring old\nBicycles".into())
        );
        // "Café" decomposed (e + combining acute) matches the composed form.
        assert_eq!(locate(text, "cafe\u{301} AU"), Some("Café au".into()));
        assert_eq!(
            locate(text, "  with my daughter.  "),
            Some("with my daughter.".into())
        );
        assert_eq!(locate(text, "restoring new bicycles"), None);
        assert_eq!(locate(text, "   "), None);
    }

    #[test]
    fn letters_whose_lower_case_is_longer_map_back_to_their_own_span() {
        // U+0130 lower-cases to two characters.
        let text = "Grüße aus İstanbul und Köln";
        assert_eq!(locate(text, "i̇stanbul und"), Some("İstanbul und".into()));
        assert_eq!(locate(text, "KÖLN"), Some("Köln".into()));
    }

    #[test]
    fn verify_prefers_the_claimed_place_and_stores_where_the_words_really_are() {
        let texts = [
            Quotable {
                origin: step(3),
                text: "Kids who read, in every village.",
            },
            Quotable {
                origin: step(6),
                text: "Finish the reading course by June.",
            },
        ];
        let found = verify("finish the reading course", Some(step(3)), &texts).unwrap();
        assert_eq!(
            found.origin,
            step(6),
            "found in step 6, whatever was claimed"
        );
        assert_eq!(found.quote, "Finish the reading course");
        assert!(verify("plastic pollution", Some(step(6)), &texts).is_none());
        assert!(
            verify(&"read ".repeat(70), None, &texts).is_none(),
            "over 300"
        );
    }

    #[test]
    fn a_goal_needs_three_words_from_its_own_step() {
        let three = Source {
            origin: step(6),
            quote: "Finish the course".into(),
        };
        let two = Source {
            origin: step(6),
            quote: "the course".into(),
        };
        let elsewhere = Source {
            origin: step(3),
            quote: "Kids who read".into(),
        };
        let own = |o: &SourceOrigin| *o == step(6);
        assert!(supports_goal(&[two.clone(), three], own));
        assert!(!supports_goal(&[two, elsewhere], own));
        // Words without spaces between them are still words.
        let japanese = Source {
            origin: step(6),
            quote: "来年は本を書きたい".into(),
        };
        assert!(japanese.words() >= GOAL_MIN_WORDS, "{}", japanese.words());
    }

    #[test]
    fn sources_serialize_with_every_field_and_read_back() {
        let mut sources = Sources::default();
        let id = ReflectionMessageId::new();
        sources.set(
            EditableField::LoveSummary,
            vec![
                Source {
                    origin: step(1),
                    quote: "Woodwork".into(),
                },
                Source {
                    origin: SourceOrigin::Reflection(id),
                    quote: "it's teaching".into(),
                },
            ],
        );
        let json = serde_json::to_value(&sources).unwrap();
        assert_eq!(json.as_object().unwrap().len(), 7);
        assert_eq!(
            json["love_summary"][0],
            serde_json::from_str::<serde_json::Value>(r#"{"step": 1, "quote": "Woodwork"}"#)
                .unwrap()
        );
        assert_eq!(
            json["love_summary"][1]["reflection_message_id"],
            serde_json::to_value(id).unwrap()
        );
        assert_eq!(
            json["overlap_narrative"],
            serde_json::Value::Array(Vec::new())
        );
        let back: Sources = serde_json::from_value(json).unwrap();
        assert_eq!(back, sources);
        let partial: Sources = serde_json::from_str("{}").unwrap();
        assert_eq!(partial.count(), 0);
        let both = r#"{"love_summary": [{"step": 1, "reflection_message_id": "x", "quote": "q"}]}"#;
        assert!(serde_json::from_str::<Sources>(both).is_err());
    }
}
