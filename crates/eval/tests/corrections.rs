//! The correction corpus through the offline coach: on the tuned and on the held-out phrasings,
//! at least 90% of the corrections land on the right field and no phrasing changes a field it
//! is not about; every revision passes the service's guard and rests on the person's words.

use std::path::Path;

use eval::corrections::{self, RIGHT_FIELD_BAR, corpus};

#[test]
fn the_coach_meets_the_bars_on_the_tuned_and_the_held_out_phrasings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corrections");
    let corpus = corpus::load(&dir).expect("the corpus loads");
    let total: usize = corpus.sets.iter().map(|s| s.cases.len()).sum();
    assert!(total >= 150, "{total} phrasings");
    let scores = corrections::evaluate(&corpus);
    let report = corrections::text(&dir.display().to_string(), &scores, true);
    assert_eq!(scores.len(), 2, "tuned and held out");
    for score in &scores {
        let (right, of) = score.right_field();
        assert!(of > 0, "{}: no corrections", score.set);
        #[allow(clippy::cast_precision_loss)]
        let share = right as f64 / of as f64;
        assert!(
            share >= RIGHT_FIELD_BAR,
            "{}: {right}/{of} on the right field\n{report}",
            score.set
        );
        assert_eq!(score.unmentioned(), 0, "{}\n{report}", score.set);
        for outcome in &score.outcomes {
            let broken: Vec<&String> = outcome
                .failures
                .iter()
                .filter(|f| f.contains("guard") || f.contains("grounded") || f.contains("source"))
                .collect();
            assert!(broken.is_empty(), "{:?}: {broken:?}", outcome.case.say);
        }
    }
}

#[test]
fn the_report_names_every_effect_and_kind_for_both_sets() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corrections");
    let corpus = corpus::load(&dir).expect("the corpus loads");
    let scores = corrections::evaluate(&corpus);
    let report = corrections::text("corpus", &scores, false);
    for name in ["== tuned", "== held-out", "precision", "recall"] {
        assert!(report.contains(name), "{name}: {report}");
    }
    for effect in corpus::Effect::ALL {
        assert!(report.contains(effect.name()), "{report}");
    }
    for kind in corpus::Kind::ALL {
        assert!(report.contains(kind.name()), "{report}");
    }
}
