//! Every persona the repository holds (the eval fixtures, tests/llm-real/answers.json) through
//! the offline engine: no English Ikigai summary equals its answer, and every summary and the
//! overlap narrative rest on the person's words (at least half of each sentence's content words
//! come from the answers it may draw on).

// A panic is the failure report here, helpers included (clippy.toml covers only #[test] bodies).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use adapters_llm::OfflineEngine;
use adapters_llm::offline::grounding::all_grounded;
use adapters_llm::offline::mirror::is_english;
use domain::discovery::ExtractionInput;
use eval::fixture;

fn check(name: &str, input: &ExtractionInput) {
    let draft = OfflineEngine::new().extraction_draft(input).unwrap();
    let answers = [
        input.love.as_str(),
        input.strength.as_str(),
        input.mission.as_str(),
        input.vocation.as_str(),
    ];
    let summaries = [
        &draft.love_summary,
        &draft.strength_summary,
        &draft.mission_summary,
        &draft.vocation_summary,
    ];
    for (summary, answer) in summaries.into_iter().zip(answers) {
        if is_english(answer) {
            assert_ne!(summary.trim(), answer.trim(), "{name}: a copy");
        }
        assert!(all_grounded(summary, &[answer]), "{name}: {summary:?}");
    }
    assert!(
        all_grounded(&draft.overlap_narrative, &answers),
        "{name}: {:?}",
        draft.overlap_narrative
    );
}

#[test]
fn no_english_summary_of_any_fixture_copies_its_answer() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let fixtures = fixture::load_dir(&dir).expect("the fixtures load");
    assert!(fixtures.len() >= 20);
    for f in &fixtures {
        check(&f.name, &f.answers.input());
    }
}

#[test]
fn no_english_summary_of_the_real_model_personas_copies_its_answer() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/llm-real/answers.json");
    let text = std::fs::read_to_string(&path).expect("answers.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let people = doc["people"].as_array().expect("people");
    assert!(!people.is_empty());
    for person in people {
        let answer = |n: &str| person["answers"][n].as_str().unwrap_or("").to_owned();
        let goal = |n: &str| Some(answer(n)).filter(|g| !g.trim().is_empty());
        let input = ExtractionInput {
            love: answer("1"),
            strength: answer("2"),
            mission: answer("3"),
            vocation: answer("4"),
            drives: answer("5"),
            near_term_goal: goal("6"),
            long_term_goal: goal("7"),
        };
        check(person["name"].as_str().unwrap_or("?"), &input);
    }
}
