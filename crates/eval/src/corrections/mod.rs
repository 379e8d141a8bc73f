//! `discovery-eval corrections`: the offline coach over the correction corpus
//! (`corrections/*.toml`), scored per set (tuned, held out): precision and recall per effect,
//! recall per kind of phrasing, the share of corrections that land on the right field, and the
//! changes made to fields a phrasing is not about.
//!
//! - [`corpus`]: the profile and the phrasings;
//! - [`run`]: one phrasing through the coach, judged;
//! - this module: the figures and the table.

pub mod corpus;
pub mod run;

use std::fmt::Write as _;

use self::corpus::{Corpus, Effect, Kind};
use self::run::Outcome;

/// The bar for corrections that land on the right field.
pub const RIGHT_FIELD_BAR: f64 = 0.9;

/// The figures of one set.
#[derive(Debug, Clone)]
pub struct Score<'a> {
    pub set: String,
    pub outcomes: Vec<Outcome<'a>>,
}

impl Score<'_> {
    /// Cases that expect a change, and those whose change landed on exactly the expected field.
    #[must_use]
    pub fn right_field(&self) -> (usize, usize) {
        let expected: Vec<&Outcome<'_>> = self
            .outcomes
            .iter()
            .filter(|o| o.case.effect.changes())
            .collect();
        let right = expected.iter().filter(|o| o.right_field()).count();
        (right, expected.len())
    }

    /// Changes made to fields a phrasing is not about.
    #[must_use]
    pub fn unmentioned(&self) -> usize {
        self.outcomes.iter().map(|o| o.unmentioned).sum()
    }

    /// Whether the set meets both bars.
    #[must_use]
    pub fn meets_the_bars(&self) -> bool {
        let (right, of) = self.right_field();
        ratio(right, of) >= RIGHT_FIELD_BAR && self.unmentioned() == 0
    }

    /// For one effect: (expected, predicted, right).
    #[must_use]
    pub fn by_effect(&self, effect: Effect) -> (usize, usize, usize) {
        let expected = self
            .outcomes
            .iter()
            .filter(|o| o.case.effect == effect)
            .count();
        let predicted = self.outcomes.iter().filter(|o| o.effect == effect).count();
        let right = self
            .outcomes
            .iter()
            .filter(|o| o.effect == effect && o.right())
            .count();
        (expected, predicted, right)
    }

    /// For one kind of phrasing: (cases, right).
    #[must_use]
    pub fn by_kind(&self, kind: Kind) -> (usize, usize) {
        let of_kind = self.outcomes.iter().filter(|o| o.case.kind == kind);
        let all = of_kind.clone().count();
        (all, of_kind.filter(|o| o.right()).count())
    }
}

/// Runs every set of `corpus`.
#[must_use]
pub fn evaluate(corpus: &Corpus) -> Vec<Score<'_>> {
    corpus
        .sets
        .iter()
        .map(|set| Score {
            set: set.name.clone(),
            outcomes: set
                .cases
                .iter()
                .map(|case| run::run(&corpus.profile, case))
                .collect(),
        })
        .collect()
}

#[allow(clippy::cast_precision_loss)]
fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "-".to_owned()
    } else {
        format!("{:.0}%", ratio(part, whole) * 100.0)
    }
}

/// The report: per set, the table by effect, the recall by kind, the two bars, and (verbose)
/// every phrasing that did not do what it should.
#[must_use]
pub fn text(source: &str, scores: &[Score<'_>], verbose: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "discovery-eval corrections: the offline coach; corpus from {source}"
    );
    for score in scores {
        let _ = writeln!(
            out,
            "\n== {} ({} phrasings)\n",
            score.set,
            score.outcomes.len()
        );
        let _ = writeln!(
            out,
            "{:<8}  {:>8}  {:>9}  {:>5}  {:>9}  {:>6}",
            "effect", "expected", "predicted", "right", "precision", "recall"
        );
        for effect in Effect::ALL {
            let (expected, predicted, right) = score.by_effect(effect);
            let _ = writeln!(
                out,
                "{:<8}  {expected:>8}  {predicted:>9}  {right:>5}  {:>9}  {:>6}",
                effect.name(),
                percent(right, predicted),
                percent(right, expected)
            );
        }
        let _ = writeln!(
            out,
            "\n{:<11}  {:>5}  {:>5}  {:>6}",
            "kind", "cases", "right", "recall"
        );
        for kind in Kind::ALL {
            let (all, right) = score.by_kind(kind);
            let _ = writeln!(
                out,
                "{:<11}  {all:>5}  {right:>5}  {:>6}",
                kind.name(),
                percent(right, all)
            );
        }
        let (right, of) = score.right_field();
        let _ = writeln!(
            out,
            "\ncorrections on the right field: {right}/{of} ({}; bar {:.0}%)",
            percent(right, of),
            RIGHT_FIELD_BAR * 100.0
        );
        let _ = writeln!(
            out,
            "changes to fields not mentioned: {} (bar 0)",
            score.unmentioned()
        );
        if verbose {
            for o in score.outcomes.iter().filter(|o| !o.right()) {
                let _ = writeln!(out, "  {:?}: {}", o.case.say, o.failures.join("; "));
            }
        }
    }
    out
}
