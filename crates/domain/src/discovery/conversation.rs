//! The discovery conversation: answers to the seven prompts, collected in any order, completed once.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{ExtractionInput, Step};
use crate::ids::{ConversationId, UserId};
use crate::text::AnswerText;

/// Whether answers are still being collected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConversationStatus {
    InProgress,
    Completed,
}

impl ConversationStatus {
    pub const ALL: [Self; 2] = [Self::InProgress, Self::Completed];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
        }
    }
}

/// One answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub step: Step,
    pub text: AnswerText,
    pub answered_at: OffsetDateTime,
}

/// Why an answer or a completion was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConversationError {
    #[error("the conversation is completed")]
    Completed,
    #[error("steps 1-5 must all be answered first (missing: {missing:?})")]
    Incomplete { missing: Vec<u8> },
}

/// A person's discovery conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    pub id: ConversationId,
    pub user_id: UserId,
    pub status: ConversationStatus,
    answers: BTreeMap<Step, Answer>,
    pub created_at: OffsetDateTime,
    pub completed_at: Option<OffsetDateTime>,
}

impl Conversation {
    #[must_use]
    pub fn start(user_id: UserId, now: OffsetDateTime) -> Self {
        Self {
            id: ConversationId::new(),
            user_id,
            status: ConversationStatus::InProgress,
            answers: BTreeMap::new(),
            created_at: now,
            completed_at: None,
        }
    }

    /// Rebuilds a stored conversation (for storage adapters).
    #[must_use]
    pub fn restore(
        id: ConversationId,
        user_id: UserId,
        answers: impl IntoIterator<Item = Answer>,
        created_at: OffsetDateTime,
        completed_at: Option<OffsetDateTime>,
    ) -> Self {
        Self {
            id,
            user_id,
            status: if completed_at.is_some() {
                ConversationStatus::Completed
            } else {
                ConversationStatus::InProgress
            },
            answers: answers.into_iter().map(|a| (a.step, a)).collect(),
            created_at,
            completed_at,
        }
    }

    /// Records (or replaces) the answer to one step and returns it. A blank answer is kept as
    /// given: to a goal step it means "I have no such goal"; to one of steps 1-5 it is a draft
    /// that leaves the step unanswered (so [`Self::next_step`] still points at it and completion
    /// waits for it), as a person who clears a field expects.
    ///
    /// # Errors
    /// [`ConversationError::Completed`] after completion.
    pub fn answer(
        &mut self,
        step: Step,
        text: AnswerText,
        now: OffsetDateTime,
    ) -> Result<&Answer, ConversationError> {
        if self.status == ConversationStatus::Completed {
            return Err(ConversationError::Completed);
        }
        let answer = Answer {
            step,
            text,
            answered_at: now,
        };
        self.answers.insert(step, answer);
        Ok(&self.answers[&step])
    }

    /// Answers, in step order.
    pub fn answers(&self) -> impl Iterator<Item = &Answer> {
        self.answers.values()
    }

    #[must_use]
    pub fn answer_to(&self, step: Step) -> Option<&Answer> {
        self.answers.get(&step)
    }

    /// The first unanswered step, or `None` when all seven are answered.
    #[must_use]
    pub fn next_step(&self) -> Option<Step> {
        Step::all().find(|s| !self.is_answered(*s))
    }

    /// Whether `step` has an answer that counts: any answer to a goal step ("" is "no such
    /// goal"), an answer that is not blank to steps 1-5.
    fn is_answered(&self, step: Step) -> bool {
        self.answers
            .get(&step)
            .is_some_and(|a| !step.is_required() || !a.text.is_blank())
    }

    /// The raw near-term goal (step 6) as typed; `""` means "no such goal".
    #[must_use]
    pub fn near_term_goal_raw(&self) -> Option<&str> {
        self.raw(6)
    }

    /// The raw long-term goal (step 7) as typed.
    #[must_use]
    pub fn long_term_goal_raw(&self) -> Option<&str> {
        self.raw(7)
    }

    fn raw(&self, step: i64) -> Option<&str> {
        let step = Step::new(step).ok()?;
        self.answers.get(&step).map(|a| a.text.as_str())
    }

    /// What the extractor reads: the five required answers and the goals that were stated.
    ///
    /// # Errors
    /// [`ConversationError::Completed`] when already completed, [`ConversationError::Incomplete`]
    /// while one of steps 1-5 has no answer.
    pub fn extraction_input(&self) -> Result<ExtractionInput, ConversationError> {
        if self.status == ConversationStatus::Completed {
            return Err(ConversationError::Completed);
        }
        let missing: Vec<u8> = Step::all()
            .filter(|s| s.is_required() && !self.is_answered(*s))
            .map(Step::get)
            .collect();
        if !missing.is_empty() {
            return Err(ConversationError::Incomplete { missing });
        }
        let text = |n: i64| self.raw(n).unwrap_or_default().to_owned();
        let goal = |n: i64| {
            self.raw(n)
                .filter(|t| !t.trim().is_empty())
                .map(str::to_owned)
        };
        Ok(ExtractionInput {
            love: text(1),
            strength: text(2),
            mission: text(3),
            vocation: text(4),
            drives: text(5),
            near_term_goal: goal(6),
            long_term_goal: goal(7),
        })
    }

    /// Marks the conversation completed.
    pub fn complete(&mut self, now: OffsetDateTime) {
        self.status = ConversationStatus::Completed;
        self.completed_at = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const T0: OffsetDateTime = datetime!(2026-11-01 09:00 UTC);

    fn text(s: &str) -> AnswerText {
        AnswerText::new(s).unwrap()
    }

    fn step(n: i64) -> Step {
        Step::new(n).unwrap()
    }

    fn answered(steps: &[(i64, &str)]) -> Conversation {
        let mut c = Conversation::start(UserId::new(), T0);
        for (n, t) in steps {
            c.answer(step(*n), text(t), T0).unwrap();
        }
        c
    }

    #[test]
    fn next_step_is_the_first_unanswered_one() {
        assert_eq!(answered(&[]).next_step(), Some(step(1)));
        assert_eq!(answered(&[(1, "a"), (2, "b")]).next_step(), Some(step(3)));
        assert_eq!(answered(&[(1, "a"), (3, "c")]).next_step(), Some(step(2)));
        let all: Vec<(i64, &str)> = (1..=7).map(|n| (n, "x")).collect();
        assert_eq!(answered(&all).next_step(), None);
    }

    #[test]
    fn a_blank_answer_leaves_a_required_step_unanswered_but_answers_a_goal() {
        let mut c = answered(&[(1, "a"), (2, "b")]);
        c.answer(step(3), text("  "), T0).unwrap();
        assert_eq!(c.answer_to(step(3)).unwrap().text.as_str(), "  ");
        assert_eq!(c.next_step(), Some(step(3)));
        c.answer(step(6), text(""), T0).unwrap();
        assert_eq!(c.near_term_goal_raw(), Some(""));
        assert_eq!(c.long_term_goal_raw(), None);
    }

    #[test]
    fn completion_waits_for_a_required_step_answered_blank() {
        let mut c = answered(&[(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")]);
        c.answer(step(4), text(""), T0).unwrap();
        assert_eq!(
            c.extraction_input().unwrap_err(),
            ConversationError::Incomplete { missing: vec![4] }
        );
        c.answer(step(4), text("Teaching"), T0).unwrap();
        assert!(c.extraction_input().is_ok());
    }

    #[test]
    fn a_later_answer_to_the_same_step_replaces_the_first() {
        let mut c = answered(&[(1, "first")]);
        c.answer(step(1), text("second"), T0).unwrap();
        assert_eq!(c.answers().count(), 1);
        assert_eq!(c.answer_to(step(1)).unwrap().text.as_str(), "second");
    }

    #[test]
    fn completion_needs_steps_one_to_five() {
        let c = answered(&[(1, "a"), (2, "b"), (4, "d")]);
        assert_eq!(
            c.extraction_input().unwrap_err(),
            ConversationError::Incomplete {
                missing: vec![3, 5]
            }
        );
    }

    #[test]
    fn extraction_input_carries_only_stated_goals() {
        let c = answered(&[
            (1, "a"),
            (2, "b"),
            (3, "c"),
            (4, "d"),
            (5, "e"),
            (6, " "),
            (7, "Found a school"),
        ]);
        let input = c.extraction_input().unwrap();
        assert_eq!(input.drives, "e");
        assert_eq!(input.near_term_goal, None);
        assert_eq!(input.long_term_goal.as_deref(), Some("Found a school"));
    }

    #[test]
    fn a_completed_conversation_takes_no_more_answers() {
        let mut c = answered(&[(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")]);
        c.complete(T0);
        assert_eq!(c.status, ConversationStatus::Completed);
        assert_eq!(
            c.answer(step(6), text("x"), T0).unwrap_err(),
            ConversationError::Completed
        );
        assert_eq!(
            c.extraction_input().unwrap_err(),
            ConversationError::Completed
        );
    }
}
