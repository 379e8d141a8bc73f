//! The mirror check of the corpus README over each person's profile: Ikigai summaries in the
//! second person, starting cleanly, no doubled word, and for an answer over 30 words at most 80%
//! of its length with no run of 15 of its words; the overlap without ellipses or lists of quoted
//! words, at most 90 words, naming a content word two of the four answers share (where they
//! share one); stated goals in the second person.

use std::collections::BTreeSet;

use adapters_llm::offline::mirrors::longest_run;
use domain::profile::EditableField;

use super::People;
use super::rules::{FIRST, doubled_word, first_person, words};

/// The mirror script's stop words.
const STOP: &str = "a an the and or but if of to in on at for with from by as is are was were be \
    been being it its this that these those there here what which who whom whose when where why \
    how not no nor so too very can could would should will shall may might must do does did done \
    have has had having just also only really more most less much many some any all each every \
    other another such than then them they their theirs we our ours us he she him her his hers \
    one ones about into over under again out up down off like get got make made thing things \
    stuff lot bit kind sort way time times people someone something anything everything nothing \
    always never often still even ever well back around because while after before through \
    during without within between both own same able want wanted need needs going gone come came \
    take took give gave know think feel felt say said see seen tell told i me my mine myself you \
    your yours yourself im ive id dont doesnt didnt cant wont isnt arent wasnt honestly maybe \
    probably actually really";

/// The script's rough stem.
fn stem(word: &str) -> String {
    for suffix in ["ing", "ers", "ies", "ed", "es", "er", "s"] {
        if word.len() > suffix.len() + 3 && word.ends_with(suffix) {
            return word[..word.len() - suffix.len()].to_owned();
        }
    }
    word.to_owned()
}

fn content(text: &str) -> BTreeSet<String> {
    let stop: BTreeSet<&str> = STOP.split_whitespace().collect();
    words(text)
        .into_iter()
        .map(|w| w.trim_matches('\'').to_owned())
        .filter(|w| w.len() > 3 && !stop.contains(w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

fn neutral(text: &str) -> Vec<String> {
    let pronouns = [
        "you", "your", "yours", "yourself", "you're", "you've", "you'd", "you'll",
    ];
    words(text)
        .into_iter()
        .filter(|w| !FIRST.contains(&w.as_str()) && *w != "id" && !pronouns.contains(&w.as_str()))
        .collect()
}

/// The checks' result: passed, total, and each failure.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    pub passed: usize,
    pub total: usize,
    pub failures: Vec<String>,
}

impl Checked {
    fn check(&mut self, name: String, ok: bool) {
        self.total += 1;
        if ok {
            self.passed += 1;
        } else {
            self.failures.push(name);
        }
    }
}

/// Checks every person's profile.
///
/// # Errors
/// A message when a person's profile cannot be made.
pub fn check(people: &People) -> Result<Checked, String> {
    let mut out = Checked::default();
    for (id, person) in &people.persons {
        let profile = person.profile()?;
        let answer = |step: &str| person.answers.get(step).cloned().unwrap_or_default();
        let ikigai = [
            ("1", EditableField::LoveSummary),
            ("2", EditableField::StrengthSummary),
            ("3", EditableField::MissionSummary),
            ("4", EditableField::VocationSummary),
        ];
        for (step, field) in ikigai {
            let a = answer(step);
            if a.trim().is_empty() {
                continue;
            }
            let v = profile.prose.get(field).map_or("", |p| p.as_str());
            let name = |what: &str| format!("{id} {} {what}: {v:?}", field.name());
            out.check(name("not blank"), !v.trim().is_empty());
            let clean = v.trim().chars().next().is_some_and(|c| {
                c.is_alphanumeric() || c == '_' || matches!(c, '"' | '“' | '\'' | '‘')
            });
            out.check(name("starts cleanly"), clean);
            out.check(name("second person"), !first_person(v));
            out.check(name("no doubled word"), !doubled_word(v));
            if words(&a).len() > 30 {
                let short = words(v).len() * 10 <= words(&a).len() * 8;
                out.check(name("shorter than the answer"), short);
                let copy = longest_run(&neutral(&a), &neutral(v)) >= 15;
                out.check(name("not a copy"), !copy);
            }
        }
        let o = profile
            .prose
            .get(EditableField::OverlapNarrative)
            .map_or("", |p| p.as_str());
        let name = |what: &str| format!("{id} overlap {what}: {o:?}");
        out.check(name("no ellipsis"), !o.contains('…') && !o.contains("..."));
        out.check(name("no word list"), !quoted_list(o));
        out.check(name("at most 90 words"), words(o).len() <= 90);
        let sets: Vec<BTreeSet<String>> =
            (1..=4).map(|i| content(&answer(&i.to_string()))).collect();
        let all: BTreeSet<&String> = sets.iter().flatten().collect();
        let shared: BTreeSet<&String> = all
            .into_iter()
            .filter(|w| sets.iter().filter(|s| s.contains(*w)).count() >= 2)
            .collect();
        if !shared.is_empty() {
            let named = content(o).iter().any(|w| shared.contains(w));
            out.check(name("names what recurs"), named);
        }
        for field in [
            EditableField::NearTermGoalSummary,
            EditableField::LongTermGoalSummary,
        ] {
            if let Some(v) = profile.prose.get(field) {
                let v = v.as_str();
                out.check(
                    format!("{id} {} second person: {v:?}", field.name()),
                    !first_person(v),
                );
            }
        }
    }
    Ok(out)
}

/// A list of quoted single words ("“fixing”, “radios”").
fn quoted_list(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if matches!(chars[i], '"' | '“') {
            let word_end = (i + 1..chars.len()).find(|j| !chars[*j].is_alphanumeric());
            if let Some(j) = word_end
                && j > i + 1
                && matches!(chars[j], '"' | '”')
                && chars.get(j + 1) == Some(&',')
            {
                let rest: String = chars[j + 2..].iter().collect();
                let rest = rest.trim_start();
                if rest.starts_with(['"', '“']) {
                    return true;
                }
            }
        }
        i += 1;
    }
    false
}
