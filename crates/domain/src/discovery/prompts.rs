//! The seven discovery prompts, in order, with the steps and keys of the contract.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A step of the conversation, 1 to 7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Step(u8);

/// A number outside 1-7.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("step must be between 1 and 7 (got {0})")]
pub struct InvalidStep(pub i64);

impl Step {
    pub const FIRST: Self = Self(1);
    /// The last step that must be answered with text; the goal steps follow it.
    pub const LAST_REQUIRED: Self = Self(5);
    pub const LAST: Self = Self(7);

    /// # Errors
    /// [`InvalidStep`] outside 1-7.
    pub fn new(value: i64) -> Result<Self, InvalidStep> {
        match u8::try_from(value) {
            Ok(v @ 1..=7) => Ok(Self(v)),
            _ => Err(InvalidStep(value)),
        }
    }

    #[must_use]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The prompt asked at this step.
    #[must_use]
    pub fn prompt(self) -> &'static Prompt {
        &PROMPTS[usize::from(self.0 - 1)]
    }

    /// Steps 1-5 must be answered with text; 6 and 7 (goals) may be answered with "" ("no such goal").
    #[must_use]
    pub const fn is_required(self) -> bool {
        self.0 <= Self::LAST_REQUIRED.0
    }

    /// All seven steps, in order.
    pub fn all() -> impl Iterator<Item = Self> {
        (1..=7).map(Self)
    }
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::new(i64::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What each prompt asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptKey {
    Love,
    Strength,
    Mission,
    Vocation,
    Drives,
    NearTermGoal,
    LongTermGoal,
}

impl PromptKey {
    pub const ALL: [Self; 7] = [
        Self::Love,
        Self::Strength,
        Self::Mission,
        Self::Vocation,
        Self::Drives,
        Self::NearTermGoal,
        Self::LongTermGoal,
    ];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Love => "love",
            Self::Strength => "strength",
            Self::Mission => "mission",
            Self::Vocation => "vocation",
            Self::Drives => "drives",
            Self::NearTermGoal => "near_term_goal",
            Self::LongTermGoal => "long_term_goal",
        }
    }
}

/// One written prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prompt {
    pub step: u8,
    pub key: PromptKey,
    pub title: &'static str,
    pub text: &'static str,
    /// The time horizon of a goal prompt ("6-12 months", "3-5 years").
    pub horizon: Option<&'static str>,
}

/// The seven prompts, in the contract's order.
pub static PROMPTS: [Prompt; 7] = [
    Prompt {
        step: 1,
        key: PromptKey::Love,
        title: "What you love",
        text: "Think of the moments when you lose track of time. What are you doing, and what about it draws you in?",
        horizon: None,
    },
    Prompt {
        step: 2,
        key: PromptKey::Strength,
        title: "What you are good at",
        text: "What do people rely on you for? Describe a time you did something well and it felt natural.",
        horizon: None,
    },
    Prompt {
        step: 3,
        key: PromptKey::Mission,
        title: "What the world needs",
        text: "Which problem or which people do you care about helping? Why does it matter to you?",
        horizon: None,
    },
    Prompt {
        step: 4,
        key: PromptKey::Vocation,
        title: "What you can be paid for",
        text: "What work do you do, or could you do, that others value enough to pay for?",
        horizon: None,
    },
    Prompt {
        step: 5,
        key: PromptKey::Drives,
        title: "What drives you",
        text: "What drives you most deeply? And when you are under pressure, how do you tend to react?",
        horizon: None,
    },
    Prompt {
        step: 6,
        key: PromptKey::NearTermGoal,
        title: "Your near-term goal",
        text: "Is there something you want to reach in the next 6 to 12 months? Leave it empty if there is none.",
        horizon: Some("6-12 months"),
    },
    Prompt {
        step: 7,
        key: PromptKey::LongTermGoal,
        title: "Your long-term goal",
        text: "Is there something you want to reach in the next 3 to 5 years? Leave it empty if there is none.",
        horizon: Some("3-5 years"),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seven_prompts_have_the_contract_steps_keys_and_horizons() {
        let got: Vec<_> = PROMPTS
            .iter()
            .map(|p| (p.step, p.key.key(), p.horizon))
            .collect();
        assert_eq!(
            got,
            [
                (1, "love", None),
                (2, "strength", None),
                (3, "mission", None),
                (4, "vocation", None),
                (5, "drives", None),
                (6, "near_term_goal", Some("6-12 months")),
                (7, "long_term_goal", Some("3-5 years")),
            ]
        );
        for step in Step::all() {
            assert_eq!(step.prompt().step, step.get());
        }
    }

    #[test]
    fn steps_outside_one_to_seven_are_refused() {
        assert!(Step::new(0).is_err());
        assert!(Step::new(8).is_err());
        assert!(Step::new(7).is_ok());
        assert!(Step::new(5).unwrap().is_required());
        assert!(!Step::new(6).unwrap().is_required());
    }
}
