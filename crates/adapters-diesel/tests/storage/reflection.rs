//! Reflection turns: appended together, listed oldest first, per person.

use adapters_diesel::DieselReflectionRepository;
use domain::ports::ReflectionRepository;
use domain::reflection::{Author, ReflectionMessage, ReplyEngine};
use time::Duration;

use crate::harness::{T0, TRICKY, user};

dual_test!(
    reflection_turns_round_trip_oldest_first_for_their_owner_only,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let repo = DieselReflectionRepository::new(db.clone());
        let later = vec![
            ReflectionMessage::new(
                ada.id,
                Author::Person,
                TRICKY.into(),
                T0 + Duration::minutes(1),
            ),
            ReflectionMessage::new(
                ada.id,
                Author::Coach,
                "Tell me more.".into(),
                T0 + Duration::minutes(1),
            )
            .by(ReplyEngine::Model),
        ];
        let earlier = vec![
            ReflectionMessage::new(ada.id, Author::Coach, "Welcome 👋".into(), T0)
                .by(ReplyEngine::Offline),
        ];
        repo.append(&later).await.unwrap();
        repo.append(&earlier).await.unwrap();
        repo.append(&[ReflectionMessage::new(
            bob.id,
            Author::Person,
            "bob".into(),
            T0,
        )])
        .await
        .unwrap();
        repo.append(&[]).await.unwrap();

        let listed = repo.list(ada.id).await.unwrap();
        assert_eq!(listed.len(), 3);
        assert_eq!(listed[0], earlier[0]);
        // The engine that wrote a coach's message comes back as stored; a person's has none.
        assert_eq!(listed[0].engine, Some(ReplyEngine::Offline));
        assert_eq!(listed[2].engine, Some(ReplyEngine::Model));
        assert_eq!(listed[1].engine, None);
        // Equal instants fall back to id order, and ids are time-ordered: insertion order.
        assert_eq!(&listed[1..], &later[..]);
        assert_eq!(listed[1].text.as_bytes(), TRICKY.as_bytes());
        assert_eq!(repo.list(bob.id).await.unwrap().len(), 1);
    }
);
