//! The system prompts, embedded from `crates/adapters-llm/prompts/` (versioned files; see the
//! README there). The version is the file name and the prompt's first line.

/// The extractor's instructions.
pub const EXTRACTOR: &str = include_str!("../../prompts/extractor.v1.md");
/// Which extractor prompt is in use.
pub const EXTRACTOR_VERSION: &str = "extractor.v1";

/// The reflection coach's instructions.
pub const COACH: &str = include_str!("../../prompts/coach.v1.md");
/// Which coach prompt is in use.
pub const COACH_VERSION: &str = "coach.v1";

#[cfg(test)]
mod tests {
    use super::*;

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
            "enneagram_type",
            "triad",
            "love_summary",
            "strength_summary",
            "mission_summary",
            "vocation_summary",
            "overlap_narrative",
            "near_term_goal_summary",
            "long_term_goal_summary",
            "sources",
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
            "\"revision_note\"",
        ] {
            assert!(COACH.contains(key), "coach: {key}");
        }
    }

    #[test]
    fn the_triads_of_the_extractor_prompt_are_the_contract_s() {
        assert!(EXTRACTOR.contains("`gut` for types 8, 9 and 1"));
        assert!(EXTRACTOR.contains("`heart` for types 2, 3 and 4"));
        assert!(EXTRACTOR.contains("`head` for types 5, 6 and 7"));
    }
}
