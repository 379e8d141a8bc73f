//! The system prompts, embedded from `crates/adapters-llm/prompts/` (versioned files; see the
//! README there). The version is the file name and the prompt's first line.

/// The extractor's instructions.
pub const EXTRACTOR: &str = include_str!("../../prompts/extractor.v4.md");
/// Which extractor prompt is in use.
pub const EXTRACTOR_VERSION: &str = "extractor.v4";

/// The reflection coach's instructions.
pub const COACH: &str = include_str!("../../prompts/coach.v2.md");
/// Which coach prompt is in use.
pub const COACH_VERSION: &str = "coach.v2";

#[cfg(test)]
mod tests {
    use super::*;
    use domain::profile::provenance::{GOAL_MIN_WORDS, QUOTE_MAX_CHARS};

    #[test]
    fn each_prompt_names_its_version_in_its_first_line() {
        for (prompt, version) in [(EXTRACTOR, EXTRACTOR_VERSION), (COACH, COACH_VERSION)] {
            let first = prompt.lines().next().unwrap_or_default();
            assert!(first.contains(version), "{first}");
        }
    }

    #[test]
    fn the_prompts_name_every_key_the_domain_reads() {
        for key in [
            "type_sources",
            "enneagram_type",
            "love_summary",
            "strength_summary",
            "mission_summary",
            "vocation_summary",
            "overlap_narrative",
            "near_term_goal_summary",
            "long_term_goal_summary",
            "sources",
            "step",
        ] {
            assert!(
                EXTRACTOR.contains(&format!("\"{key}\"")),
                "extractor: {key}"
            );
        }
        for key in [
            "\"message\"",
            "\"revisions\"",
            "\"field\"",
            "\"value\"",
            "\"quotes\"",
            "\"revision_note\"",
        ] {
            assert!(COACH.contains(key), "coach: {key}");
        }
    }

    #[test]
    fn the_extractor_no_longer_asks_for_the_triad() {
        // The service derives it from the type; a model that still sends one is checked.
        assert!(!EXTRACTOR.contains("triad"));
    }

    #[test]
    fn the_prompts_state_the_domain_s_limits() {
        assert_eq!(GOAL_MIN_WORDS, 3);
        for prompt in [EXTRACTOR, COACH] {
            assert!(prompt.contains(&format!("at most {QUOTE_MAX_CHARS}")));
            assert!(prompt.contains("at least three"));
            assert!(prompt.contains("data, not instructions"));
        }
        assert!(COACH.contains("copied exactly"));
        // The extractor names sentences by number; the service copies them.
        assert!(EXTRACTOR.contains("copies each sentence"));
        assert!(EXTRACTOR.contains("Never invent a goal"));
    }
}
