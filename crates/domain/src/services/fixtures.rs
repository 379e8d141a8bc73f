//! Shared test values for the service tests.

use time::OffsetDateTime;
use time::macros::datetime;

use crate::clock::FixedClock;
use crate::discovery::Extraction;
use crate::ids::UserId;
use crate::profile::{EnneagramType, Profile, ProfileEvent, ProseFields, Sources};
use crate::text::Prose;

pub const NOW: OffsetDateTime = datetime!(2026-11-22 10:00 UTC);

pub fn clock() -> FixedClock {
    FixedClock::at(NOW)
}

pub fn prose(s: &str) -> Prose {
    Prose::new(s).unwrap()
}

pub fn extraction(type_: i64) -> Extraction {
    Extraction {
        enneagram_type: EnneagramType::new(type_).unwrap(),
        prose: ProseFields {
            love_summary: prose("Building things with my hands."),
            strength_summary: prose("Patience."),
            mission_summary: prose("Repairing instead of replacing."),
            vocation_summary: prose("Carpentry."),
            overlap_narrative: prose("A repair workshop."),
            near_term_goal_summary: Some(prose("Open the workshop on Saturdays.")),
            long_term_goal_summary: None,
        },
        sources: Sources::default(),
    }
}

pub fn unlocked_profile(user: UserId) -> Profile {
    Profile::extracted(user, extraction(9), NOW).profile
}

pub fn locked_profile(user: UserId) -> Profile {
    unlocked_profile(user)
        .apply(ProfileEvent::Affirm, NOW)
        .unwrap()
        .profile
}

/// Runs a future to completion on the current thread (the domain has no async runtime).
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures::executor::block_on(f)
}
