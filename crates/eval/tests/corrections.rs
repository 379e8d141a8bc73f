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

/// The examples of docs/offline-engine.md ("When you correct or add something"), on the corpus
/// profile's "what you love".
#[test]
fn the_documented_examples_hold() {
    use adapters_llm::offline::coach::reply_and_act;
    use domain::coaching::CoachingStyle;
    use domain::ports::CoachRequest;
    use domain::reflection::ReflectionTurn;
    use domain::text::MessageText;

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corrections");
    let profile = corpus::load(&dir).expect("the corpus loads").profile;
    let examples = [
        (
            "One correction: what I love most is being outdoors with my dog.",
            Some(
                "You love being outdoors with your dog most. Baking bread on Sundays calms you down.",
            ),
        ),
        (
            "Also, I love gardening.",
            Some(
                "You love teaching new nurses on the night shift. Baking bread on Sundays calms \
                 you down. You love gardening.",
            ),
        ),
        (
            "It's not really baking bread, it's making pizza.",
            Some(
                "You love teaching new nurses on the night shift. Making pizza on Sundays calms \
                 you down.",
            ),
        ),
        (
            "Leave out the night shift, please.",
            Some("You love teaching new nurses. Baking bread on Sundays calms you down."),
        ),
        (
            "I'd say I love baking more than teaching.",
            Some("You love baking more than teaching. Baking bread on Sundays calms you down."),
        ),
        ("Take out the part about nurses.", None),
    ];
    for (said, expected) in examples {
        let request = CoachRequest {
            profile: profile.clone(),
            dialogue: Vec::new(),
            style: CoachingStyle::Direct,
            turn: ReflectionTurn::Message(MessageText::new(said).expect("a message")),
            feedback: None,
        };
        let (draft, _) = reply_and_act(&request);
        match expected {
            Some(value) => {
                assert_eq!(draft.revisions.len(), 1, "{said}: {draft:?}");
                assert_eq!(draft.revisions[0].field, "love_summary", "{said}");
                assert_eq!(draft.revisions[0].value, value, "{said}");
            }
            None => {
                assert!(draft.revisions.is_empty(), "{said}: {draft:?}");
                assert!(
                    draft.message.contains("what you love")
                        && draft.message.contains("what you can be paid for"),
                    "{}",
                    draft.message
                );
            }
        }
    }
}
