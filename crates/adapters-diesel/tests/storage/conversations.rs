//! Conversations: round trip, answers replaced in place, raw goal columns, one in progress per
//! person, no answers after completion.

use adapters_diesel::DieselConversationRepository;
use domain::RepoError;
use domain::discovery::{Answer, Conversation, Step};
use domain::ids::ConversationId;
use domain::ports::ConversationRepository;
use domain::text::AnswerText;
use time::{Duration, OffsetDateTime};

use crate::harness::{T0, TRICKY, count, user};

pub fn answer(step: i64, text: &str, at: OffsetDateTime) -> Answer {
    Answer {
        step: Step::new(step).unwrap(),
        text: AnswerText::new(text).unwrap(),
        answered_at: at,
    }
}

dual_test!(
    a_conversation_round_trips_with_its_answers_byte_for_byte,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselConversationRepository::new(db.clone());
        assert_eq!(repo.latest(ada.id).await.unwrap(), None);
        let mut c = Conversation::start(ada.id, T0);
        c.answer(Step::new(1).unwrap(), AnswerText::new(TRICKY).unwrap(), T0)
            .unwrap();
        repo.create(&c).await.unwrap();
        for (step, text) in [(2, "Strength 💪"), (6, ""), (7, TRICKY)] {
            let a = answer(step, text, T0 + Duration::seconds(step));
            repo.save_answer(c.id, &a).await.unwrap();
            c.answer(a.step, a.text, a.answered_at).unwrap();
        }
        let stored = repo.latest(ada.id).await.unwrap().unwrap();
        assert_eq!(stored, c);
        assert_eq!(
            stored
                .answer_to(Step::new(1).unwrap())
                .unwrap()
                .text
                .as_str()
                .as_bytes(),
            TRICKY.as_bytes()
        );
        assert_eq!(
            stored.near_term_goal_raw(),
            Some(""),
            "an empty goal answer is kept as empty"
        );
        let id = c.id;
        let raw = format!(
            "discovery_conversation WHERE id = '{id}' AND near_term_goal_raw = '' AND long_term_goal_raw IS NOT NULL"
        );
        assert_eq!(count(&db, &raw).await, 1, "the raw goal columns are stored");
    }
);

dual_test!(a_second_answer_to_a_step_replaces_the_first, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselConversationRepository::new(db.clone());
    let c = Conversation::start(ada.id, T0);
    repo.create(&c).await.unwrap();
    repo.save_answer(c.id, &answer(6, "Run a marathon", T0))
        .await
        .unwrap();
    let later = T0 + Duration::minutes(1);
    repo.save_answer(c.id, &answer(6, "Run a half marathon", later))
        .await
        .unwrap();
    let stored = repo.latest(ada.id).await.unwrap().unwrap();
    assert_eq!(stored.answers().count(), 1);
    assert_eq!(stored.near_term_goal_raw(), Some("Run a half marathon"));
    assert_eq!(stored.answers().next().unwrap().answered_at, later);
    let id = c.id;
    let raw = format!(
        "discovery_conversation WHERE id = '{id}' AND near_term_goal_raw = 'Run a half marathon'"
    );
    assert_eq!(count(&db, &raw).await, 1);
});

dual_test!(only_one_conversation_per_person_is_in_progress, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    let repo = DieselConversationRepository::new(db.clone());
    let first = Conversation::start(ada.id, T0);
    repo.create(&first).await.unwrap();
    let second = Conversation::start(ada.id, T0 + Duration::hours(1));
    assert!(matches!(
        repo.create(&second).await,
        Err(RepoError::Conflict)
    ));
    repo.create(&Conversation::start(bob.id, T0)).await.unwrap();

    // Completed conversations do not count: a completed one may sit beside a new one.
    let mut done = Conversation::start(ada.id, T0 - Duration::days(30));
    done.complete(T0 - Duration::days(29));
    repo.create(&done).await.unwrap();
    assert_eq!(
        repo.latest(ada.id).await.unwrap().unwrap().id,
        first.id,
        "latest is the newest"
    );
});

dual_test!(answers_to_a_completed_conversation_are_refused, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselConversationRepository::new(db.clone());
    let mut c = Conversation::start(ada.id, T0);
    c.complete(T0 + Duration::hours(1));
    repo.create(&c).await.unwrap();
    for step in [1, 6, 7] {
        assert!(matches!(
            repo.save_answer(c.id, &answer(step, "late", T0)).await,
            Err(RepoError::Conflict)
        ));
    }
    assert_eq!(
        repo.latest(ada.id)
            .await
            .unwrap()
            .unwrap()
            .answers()
            .count(),
        0
    );
    assert!(matches!(
        repo.save_answer(ConversationId::new(), &answer(1, "x", T0))
            .await,
        Err(RepoError::NotFound)
    ));
});
