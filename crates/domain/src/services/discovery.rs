//! Discovery use cases: start a conversation, answer prompts, and complete it into a profile.

use crate::clock::Clock;
use crate::discovery::{Conversation, ConversationError, ExtractionDraft, Step};
use crate::error::RepoError;
use crate::ids::UserId;
use crate::notifications;
use crate::ports::{ConversationRepository, Extractor, ProfileRepository, ProfileWrite};
use crate::profile::{Profile, ProfileEvent, TransitionError};
use crate::services::model_retry::{ModelFailure, ask_with_one_retry};
use crate::text::{AnswerText, Note};

/// The conversation use cases.
#[derive(Debug, Clone)]
pub struct DiscoveryService<C, P, E, K> {
    conversations: C,
    profiles: P,
    extractor: E,
    clock: K,
}

/// Failure of [`DiscoveryService::get`].
#[derive(Debug, thiserror::Error)]
pub enum GetConversationError {
    #[error("no conversation")]
    NotFound,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`DiscoveryService::answer`].
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("no conversation")]
    NotFound,
    #[error("the conversation is completed")]
    Completed,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`DiscoveryService::complete`].
#[derive(Debug, thiserror::Error)]
pub enum CompleteError {
    #[error("no conversation")]
    NotFound,
    #[error("the conversation is completed")]
    Completed,
    #[error("steps {missing:?} are not answered")]
    Incomplete { missing: Vec<u8> },
    #[error("the profile is affirmed")]
    ProfileLocked,
    #[error("the extractor is unavailable")]
    ExtractorUnavailable(#[source] ModelFailure),
    #[error("a concurrent change won")]
    Conflict,
    #[error(transparent)]
    Repo(RepoError),
}

impl From<RepoError> for CompleteError {
    fn from(e: RepoError) -> Self {
        match e {
            RepoError::Conflict => Self::Conflict,
            other => Self::Repo(other),
        }
    }
}

impl<C, P, E, K> DiscoveryService<C, P, E, K>
where
    C: ConversationRepository,
    P: ProfileRepository,
    E: Extractor,
    K: Clock,
{
    pub fn new(conversations: C, profiles: P, extractor: E, clock: K) -> Self {
        Self {
            conversations,
            profiles,
            extractor,
            clock,
        }
    }

    /// Returns the conversation in progress, or starts one. The flag is `true` when it was created.
    ///
    /// # Errors
    /// [`RepoError::Busy`]: nothing was written, and the same call shortly may succeed.
    /// [`RepoError::Unavailable`]: the database did not answer, so whether it committed is unknown;
    /// starting again is safe (it returns the open conversation).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: repeating will not help.
    pub async fn start(&self, user: UserId) -> Result<(Conversation, bool), RepoError> {
        if let Some(current) = self.conversations.latest(user).await?
            && current.completed_at.is_none()
        {
            return Ok((current, false));
        }
        let conversation = Conversation::start(user, self.clock.now());
        match self.conversations.create(&conversation).await {
            Ok(()) => Ok((conversation, true)),
            // Another request started one a moment ago: answer with that one.
            Err(RepoError::Conflict) => match self.conversations.latest(user).await? {
                Some(current) => Ok((current, false)),
                None => Err(RepoError::Conflict),
            },
            Err(e) => Err(e),
        }
    }

    /// The latest conversation.
    ///
    /// # Errors
    /// [`GetConversationError::NotFound`] when the user never started one.
    pub async fn get(&self, user: UserId) -> Result<Conversation, GetConversationError> {
        self.conversations
            .latest(user)
            .await?
            .ok_or(GetConversationError::NotFound)
    }

    /// Records the answer to one step.
    ///
    /// # Errors
    /// See [`AnswerError`].
    pub async fn answer(
        &self,
        user: UserId,
        step: Step,
        text: AnswerText,
    ) -> Result<Conversation, AnswerError> {
        let mut conversation = self
            .conversations
            .latest(user)
            .await?
            .ok_or(AnswerError::NotFound)?;
        let answer = conversation
            .answer(step, text, self.clock.now())
            .map_err(|_| AnswerError::Completed)?
            .clone();
        match self
            .conversations
            .save_answer(conversation.id, &answer)
            .await
        {
            Ok(()) => Ok(conversation),
            Err(RepoError::Conflict) => Err(AnswerError::Completed),
            Err(e) => Err(e.into()),
        }
    }

    /// Extracts the profile from the answers. A first extraction creates the profile; an unlocked
    /// profile is updated in place with a new `extraction` revision.
    ///
    /// # Errors
    /// See [`CompleteError`].
    pub async fn complete(&self, user: UserId) -> Result<Profile, CompleteError> {
        let conversation = self
            .conversations
            .latest(user)
            .await?
            .ok_or(CompleteError::NotFound)?;
        let input = conversation.extraction_input().map_err(|e| match e {
            ConversationError::Incomplete { missing } => CompleteError::Incomplete { missing },
            _ => CompleteError::Completed,
        })?;
        let existing = self.profiles.get(user).await?;
        if existing.as_ref().is_some_and(|p| p.locked) {
            return Err(CompleteError::ProfileLocked);
        }
        let grounded = ask_with_one_retry(
            |feedback| self.extractor.extract(&input, feedback),
            |raw| {
                ExtractionDraft::parse(raw)?.guard_grounded(
                    &input,
                    || self.extractor.mirror(&input),
                    |drives| self.extractor.read_type(drives),
                )
            },
        )
        .await
        .map_err(CompleteError::ExtractorUnavailable)?;
        let note = grounded.report.note().map(|n| Note::capped(&n));
        let extraction = grounded.extraction;

        let now = self.clock.now();
        let was_locked = existing.as_ref().is_some_and(|p| p.locked);
        let (transition, expected_version) = match existing {
            None => (Profile::extracted(user, extraction, now), None),
            Some(profile) => {
                let version = profile.version;
                let t = profile
                    .apply(ProfileEvent::Reextraction(extraction), now)
                    .map_err(|TransitionError::ProfileLocked| CompleteError::ProfileLocked)?;
                (t, Some(version))
            }
        };
        let mut transition = transition;
        if let Some(revision) = transition.revision.as_mut() {
            revision.note = note;
        }
        let events = notifications::profile_events(
            was_locked,
            &transition.profile,
            transition.revision.as_ref(),
            now,
        );
        self.profiles
            .write(ProfileWrite {
                profile: transition.profile.clone(),
                expected_version,
                revision: transition.revision,
                reflection: Vec::new(),
                completes: Some((conversation.id, now)),
                events,
            })
            .await?;
        Ok(transition.profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::{ClaimedSource, ExtractionDraft};
    use crate::notifications::EventType;
    use crate::ports::{
        MockConversationRepository, MockExtractor, MockProfileRepository, ModelError,
    };
    use crate::profile::RevisionOrigin;
    use crate::services::fixtures::{NOW, block_on, clock, locked_profile, unlocked_profile};
    use mockall::Sequence;
    use mockall::predicate::eq;

    type Service = DiscoveryService<
        MockConversationRepository,
        MockProfileRepository,
        MockExtractor,
        crate::clock::FixedClock,
    >;

    fn service(
        c: MockConversationRepository,
        p: MockProfileRepository,
        e: MockExtractor,
    ) -> Service {
        DiscoveryService::new(c, p, e, clock())
    }

    fn answered(user: UserId, steps: i64) -> Conversation {
        let mut c = Conversation::start(user, NOW);
        for n in 1..=steps {
            let text = if n == 6 {
                ""
            } else {
                "Teaching children to read."
            };
            c.answer(Step::new(n).unwrap(), AnswerText::new(text).unwrap(), NOW)
                .unwrap();
        }
        c
    }

    fn draft_json(type_: i64, triad: &str) -> String {
        serde_json::to_string(&ExtractionDraft {
            enneagram_type: type_,
            triad: Some(triad.into()),
            // The type rests on the drives answer (step 5).
            type_sources: vec![ClaimedSource {
                step: Some(5),
                quote: "Teaching children to read.".into(),
            }],
            // Every sentence rests on the answers ("Teaching children to read."), so no field
            // is replaced by the mirror.
            love_summary: "You love teaching children.".into(),
            strength_summary: "Teaching.".into(),
            mission_summary: "Children who read.".into(),
            vocation_summary: "You teach.".into(),
            overlap_narrative: "Teaching reading.".into(),
            near_term_goal_summary: Some("invented goal".into()),
            long_term_goal_summary: Some("Teach children to read.".into()),
            // The goal rests on three words of step 7 (every answer but step 6 is the same).
            sources: [(
                "long_term_goal_summary".to_owned(),
                vec![ClaimedSource {
                    step: Some(7),
                    quote: "children to read".into(),
                }],
            )]
            .into(),
        })
        .unwrap()
    }

    /// An extractor whose offline reading of any drives sentence is unclear: the model's
    /// cited type stands.
    fn extractor() -> MockExtractor {
        let mut e = MockExtractor::new();
        e.expect_read_type().returning(|_| None);
        e
    }

    fn conversations_with(conversation: Conversation) -> MockConversationRepository {
        let mut c = MockConversationRepository::new();
        c.expect_latest()
            .returning(move |_| Ok(Some(conversation.clone())));
        c
    }

    #[test]
    fn starting_returns_the_conversation_in_progress() {
        let user = UserId::new();
        let current = answered(user, 2);
        let mut c = conversations_with(current.clone());
        c.expect_create().never();
        let (got, created) =
            block_on(service(c, MockProfileRepository::new(), MockExtractor::new()).start(user))
                .unwrap();
        assert_eq!((got, created), (current, false));
    }

    #[test]
    fn starting_after_a_completed_conversation_creates_a_new_one() {
        let user = UserId::new();
        let mut done = answered(user, 5);
        done.complete(NOW);
        let mut c = conversations_with(done);
        c.expect_create().times(1).returning(|_| Ok(()));
        let (got, created) =
            block_on(service(c, MockProfileRepository::new(), MockExtractor::new()).start(user))
                .unwrap();
        assert!(created);
        assert_eq!(got.answers().count(), 0);
    }

    #[test]
    fn answering_a_completed_conversation_is_refused_without_a_write() {
        let user = UserId::new();
        let mut done = answered(user, 5);
        done.complete(NOW);
        let mut c = conversations_with(done);
        c.expect_save_answer().never();
        let err = block_on(
            service(c, MockProfileRepository::new(), MockExtractor::new()).answer(
                user,
                Step::new(6).unwrap(),
                AnswerText::new("x").unwrap(),
            ),
        )
        .unwrap_err();
        assert!(matches!(err, AnswerError::Completed));
    }

    #[test]
    fn an_answer_racing_a_completion_reports_completed() {
        let user = UserId::new();
        let mut c = conversations_with(answered(user, 1));
        c.expect_save_answer()
            .returning(|_, _| Err(RepoError::Conflict));
        let err = block_on(
            service(c, MockProfileRepository::new(), MockExtractor::new()).answer(
                user,
                Step::new(2).unwrap(),
                AnswerText::new("x").unwrap(),
            ),
        )
        .unwrap_err();
        assert!(matches!(err, AnswerError::Completed));
    }

    #[test]
    fn completing_before_steps_one_to_five_are_answered_is_refused() {
        let user = UserId::new();
        let mut e = extractor();
        e.expect_extract().never();
        let err = block_on(
            service(
                conversations_with(answered(user, 4)),
                MockProfileRepository::new(),
                e,
            )
            .complete(user),
        )
        .unwrap_err();
        assert!(matches!(err, CompleteError::Incomplete { missing } if missing == [5]));
    }

    #[test]
    fn completing_when_the_profile_is_affirmed_is_refused_before_extraction() {
        let user = UserId::new();
        let mut p = MockProfileRepository::new();
        p.expect_get()
            .returning(move |_| Ok(Some(locked_profile(user))));
        p.expect_write().never();
        let mut e = extractor();
        e.expect_extract().never();
        let err = block_on(service(conversations_with(answered(user, 7)), p, e).complete(user))
            .unwrap_err();
        assert!(matches!(err, CompleteError::ProfileLocked));
    }

    #[test]
    fn a_first_completion_creates_the_profile_drops_invented_goals_and_completes_the_conversation()
    {
        let user = UserId::new();
        let conversation = answered(user, 7);
        let conversation_id = conversation.id;
        let mut p = MockProfileRepository::new();
        p.expect_get().returning(|_| Ok(None));
        p.expect_write()
            .withf(move |w| {
                w.expected_version.is_none()
                    && w.completes == Some((conversation_id, NOW))
                    && w.revision
                        .as_ref()
                        .is_some_and(|r| r.origin == RevisionOrigin::Extraction)
                    && w.profile.prose.near_term_goal_summary.is_none()
                    && w.profile
                        .prose
                        .long_term_goal_summary
                        .as_ref()
                        .is_some_and(|g| g.as_str() == "Teach children to read.")
                    && w.events.len() == 1
                    && w.events[0].event_type == EventType::ProfileRevised
            })
            .times(1)
            .returning(|_| Ok(None));
        let mut e = extractor();
        e.expect_extract()
            .with(mockall::predicate::always(), eq(None))
            .times(1)
            .returning(|_, _| Ok(draft_json(4, "heart")));
        let profile =
            block_on(service(conversations_with(conversation), p, e).complete(user)).unwrap();
        assert_eq!(profile.enneagram_type.get(), 4);
        assert_eq!(profile.version, 1);
    }

    #[test]
    fn an_unusable_reply_is_retried_once_with_the_reason() {
        let user = UserId::new();
        let mut p = MockProfileRepository::new();
        p.expect_get().returning(|_| Ok(None));
        p.expect_write().times(1).returning(|_| Ok(None));
        let mut e = extractor();
        let mut seq = Sequence::new();
        e.expect_extract()
            .with(mockall::predicate::always(), eq(None))
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(draft_json(1, "head")));
        e.expect_extract()
            .withf(|_, feedback| feedback.as_deref().is_some_and(|f| f.contains("triad")))
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(draft_json(1, "gut")));
        let profile =
            block_on(service(conversations_with(answered(user, 5)), p, e).complete(user)).unwrap();
        assert_eq!(profile.enneagram_type.get(), 1);
    }

    #[test]
    fn two_unusable_replies_make_the_extractor_unavailable_and_write_nothing() {
        let user = UserId::new();
        let mut p = MockProfileRepository::new();
        p.expect_get().returning(|_| Ok(None));
        p.expect_write().never();
        let mut e = extractor();
        e.expect_extract()
            .times(2)
            .returning(|_, _| Ok("I think you are a type 5.".into()));
        let err = block_on(service(conversations_with(answered(user, 5)), p, e).complete(user))
            .unwrap_err();
        assert!(matches!(
            err,
            CompleteError::ExtractorUnavailable(ModelFailure::Unusable(_))
        ));
    }

    #[test]
    fn a_model_timeout_is_not_retried() {
        let user = UserId::new();
        let mut p = MockProfileRepository::new();
        p.expect_get().returning(|_| Ok(None));
        p.expect_write().never();
        let mut e = extractor();
        e.expect_extract()
            .times(1)
            .returning(|_, _| Err(ModelError::Timeout));
        let err = block_on(service(conversations_with(answered(user, 5)), p, e).complete(user))
            .unwrap_err();
        assert!(matches!(
            err,
            CompleteError::ExtractorUnavailable(ModelFailure::Model(ModelError::Timeout))
        ));
    }

    #[test]
    fn re_extraction_updates_an_unlocked_profile_in_place_with_a_new_revision() {
        let user = UserId::new();
        let existing = unlocked_profile(user);
        let id = existing.id;
        let mut p = MockProfileRepository::new();
        p.expect_get()
            .returning(move |_| Ok(Some(existing.clone())));
        p.expect_write()
            .withf(move |w| {
                w.expected_version == Some(1)
                    && w.profile.id == id
                    && w.profile.version == 2
                    && w.revision
                        .as_ref()
                        .is_some_and(|r| r.origin == RevisionOrigin::Extraction)
            })
            .times(1)
            .returning(|_| Ok(None));
        let mut e = extractor();
        e.expect_extract()
            .returning(|_, _| Ok(draft_json(6, "head")));
        let profile =
            block_on(service(conversations_with(answered(user, 5)), p, e).complete(user)).unwrap();
        assert_eq!(profile.enneagram_type.get(), 6);
    }

    #[test]
    fn an_invented_summary_is_replaced_by_the_mirror_and_the_revision_says_so() {
        let user = UserId::new();
        let mut p = MockProfileRepository::new();
        p.expect_get().returning(|_| Ok(None));
        p.expect_write()
            .withf(|w| {
                let note = w.revision.as_ref().and_then(|r| r.note.as_ref());
                w.profile.prose.love_summary.as_str() == "You love teaching children to read."
                    && w.profile.prose.mission_summary.as_str() == "Children who read."
                    && note.is_some_and(|n| {
                        n.as_str().starts_with("love_summary: ") && n.as_str().contains("mirror")
                    })
            })
            .times(1)
            .returning(|_| Ok(None));
        let mut e = extractor();
        e.expect_extract().times(1).returning(|_, _| {
            let mut draft: ExtractionDraft = serde_json::from_str(&draft_json(2, "heart")).unwrap();
            draft.love_summary = "You love baking bread for your neighbours.".into();
            Ok(serde_json::to_string(&draft).unwrap())
        });
        e.expect_mirror().times(1).returning(|_| {
            let mut mirror: ExtractionDraft = serde_json::from_str(&draft_json(5, "head")).unwrap();
            mirror.love_summary = "You love teaching children to read.".into();
            Some(mirror)
        });
        let profile =
            block_on(service(conversations_with(answered(user, 5)), p, e).complete(user)).unwrap();
        assert_eq!(profile.enneagram_type.get(), 2, "the type is the model's");
    }

    #[test]
    fn a_type_without_a_cited_drives_sentence_is_the_offline_engine_s_and_the_note_says_so() {
        let user = UserId::new();
        let mut p = MockProfileRepository::new();
        p.expect_get().returning(|_| Ok(None));
        p.expect_write()
            .withf(|w| {
                let note = w.revision.as_ref().and_then(|r| r.note.as_ref());
                w.profile.enneagram_type.get() == 5
                    && note.is_some_and(|n| {
                        n.as_str()
                            .contains("enneagram_type: decided by the offline engine (5)")
                    })
            })
            .times(1)
            .returning(|_| Ok(None));
        let mut e = MockExtractor::new();
        e.expect_read_type().never();
        e.expect_extract().times(1).returning(|_, _| {
            let mut draft: ExtractionDraft = serde_json::from_str(&draft_json(2, "heart")).unwrap();
            draft.type_sources.clear();
            Ok(serde_json::to_string(&draft).unwrap())
        });
        e.expect_mirror()
            .times(1)
            .returning(|_| serde_json::from_str(&draft_json(5, "head")).ok());
        let profile =
            block_on(service(conversations_with(answered(user, 5)), p, e).complete(user)).unwrap();
        assert_eq!(profile.enneagram_type.get(), 5);
    }

    #[test]
    fn a_concurrent_completion_surfaces_as_a_conflict() {
        let user = UserId::new();
        let mut p = MockProfileRepository::new();
        p.expect_get().returning(|_| Ok(None));
        p.expect_write().returning(|_| Err(RepoError::Conflict));
        let mut e = extractor();
        e.expect_extract()
            .returning(|_, _| Ok(draft_json(3, "heart")));
        let err = block_on(service(conversations_with(answered(user, 5)), p, e).complete(user))
            .unwrap_err();
        assert!(matches!(err, CompleteError::Conflict));
    }
}
