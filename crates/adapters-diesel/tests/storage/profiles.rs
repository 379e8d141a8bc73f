//! Profiles: round trip, optimistic versions, revision numbering, and the atomic write that
//! stores reflection turns and completes the conversation, or nothing at all.

use adapters_diesel::{
    DieselConversationRepository, DieselProfileRepository, DieselReflectionRepository,
};
use domain::RepoError;
use domain::discovery::{Conversation, ConversationStatus, Extraction, Step};
use domain::ids::{ReflectionMessageId, UserId};
use domain::notifications::profile_events;
use domain::pagination::PageLimit;
use domain::ports::{
    ConversationRepository, ProfileRepository, ProfileWrite, ReflectionRepository,
};
use domain::profile::{
    EditableField, EnneagramType, Profile, ProfileEdit, ProfileEvent, ProseFields, RevisionOrigin,
    Source, SourceOrigin, Sources,
};
use domain::reflection::{Author, ReflectionMessage};
use domain::text::{Note, Prose};
use time::{Duration, OffsetDateTime};

use crate::harness::{T0, TRICKY, count, user};

fn prose(s: &str) -> Prose {
    Prose::new(s).unwrap()
}

pub fn extraction() -> Extraction {
    Extraction {
        enneagram_type: EnneagramType::new(4).unwrap(),
        prose: ProseFields {
            love_summary: prose(TRICKY),
            strength_summary: prose("Organising people."),
            mission_summary: prose("Helping kids find their voice."),
            vocation_summary: prose("Music teacher."),
            overlap_narrative: prose("Teaching music joins it all."),
            near_term_goal_summary: Some(prose("Record an album — 🎶")),
            long_term_goal_summary: None,
        },
        sources: sources(),
    }
}

/// Sources of both kinds, with text that tests the storage's escaping.
fn sources() -> Sources {
    let mut sources = Sources::default();
    sources.set(
        EditableField::LoveSummary,
        vec![
            Source {
                origin: SourceOrigin::Step(Step::new(1).unwrap()),
                quote: TRICKY.into(),
            },
            Source {
                origin: SourceOrigin::Reflection(ReflectionMessageId::new()),
                quote: "it's teaching, really".into(),
            },
        ],
    );
    sources.set(
        EditableField::NearTermGoalSummary,
        vec![Source {
            origin: SourceOrigin::Step(Step::new(6).unwrap()),
            quote: "Record an album".into(),
        }],
    );
    sources
}

/// The first write of a new profile, as extraction makes it.
pub fn first_write(user: UserId, at: OffsetDateTime) -> ProfileWrite {
    let t = Profile::extracted(user, extraction(), at);
    let events = profile_events(false, &t.profile, t.revision.as_ref(), at);
    ProfileWrite {
        profile: t.profile,
        expected_version: None,
        revision: t.revision,
        reflection: vec![],
        completes: None,
        events,
    }
}

pub fn edit(
    profile: &Profile,
    field: EditableField,
    value: Option<&str>,
    at: OffsetDateTime,
) -> ProfileWrite {
    let event = ProfileEvent::ManualEdit(ProfileEdit::new([(field, value.map(prose))]).unwrap());
    let t = profile.clone().apply(event, at).unwrap();
    let events = profile_events(profile.locked, &t.profile, t.revision.as_ref(), at);
    ProfileWrite {
        profile: t.profile,
        expected_version: Some(profile.version),
        revision: t.revision,
        reflection: vec![],
        completes: None,
        events,
    }
}

dual_test!(a_new_profile_round_trips_with_revision_one, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselProfileRepository::new(db.clone());
    assert_eq!(repo.get(ada.id).await.unwrap(), None);
    let w = first_write(ada.id, T0);
    let revision = repo.write(w.clone()).await.unwrap().unwrap();
    assert_eq!(revision.number, 1);
    assert_eq!(revision.origin, RevisionOrigin::Extraction);
    let stored = repo.get(ada.id).await.unwrap().unwrap();
    assert_eq!(stored, w.profile);
    assert_eq!(
        stored.prose.love_summary.as_str().as_bytes(),
        TRICKY.as_bytes()
    );
    assert_eq!(stored.created_at, T0);
    assert_eq!(repo.revisions(stored.id).await.unwrap(), [revision]);
    let bob = user(&db, "bob@example.org").await;
    assert_eq!(repo.get(bob.id).await.unwrap(), None, "owner scoped");
});

dual_test!(a_second_profile_for_a_person_is_a_conflict, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselProfileRepository::new(db.clone());
    repo.write(first_write(ada.id, T0)).await.unwrap();
    assert!(matches!(
        repo.write(first_write(ada.id, T0)).await,
        Err(RepoError::Conflict)
    ));
});

dual_test!(
    revisions_are_numbered_in_order_and_goals_can_be_cleared,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselProfileRepository::new(db.clone());
        let w = first_write(ada.id, T0);
        repo.write(w.clone()).await.unwrap();
        let mut profile = w.profile;
        let t1 = T0 + Duration::minutes(1);
        let e1 = edit(&profile, EditableField::NearTermGoalSummary, None, t1);
        assert_eq!(repo.write(e1.clone()).await.unwrap().unwrap().number, 2);
        profile = e1.profile;
        let t2 = T0 + Duration::minutes(2);
        let reflection = profile
            .clone()
            .apply(
                ProfileEvent::Reflection {
                    edit: ProfileEdit::new([(
                        EditableField::MissionSummary,
                        Some(prose("Giving kids a stage.")),
                    )])
                    .unwrap(),
                    note: Some(Note::new(TRICKY).unwrap()),
                    sources: Sources::default(),
                },
                t2,
            )
            .unwrap();
        let w3 = ProfileWrite {
            profile: reflection.profile.clone(),
            expected_version: Some(profile.version),
            revision: reflection.revision,
            reflection: vec![],
            completes: None,
            events: vec![],
        };
        let r3 = repo.write(w3).await.unwrap().unwrap();
        assert_eq!((r3.number, r3.origin), (3, RevisionOrigin::Reflection));

        let stored = repo.get(ada.id).await.unwrap().unwrap();
        assert_eq!(stored, reflection.profile);
        assert_eq!(
            stored.prose.near_term_goal_summary, None,
            "a cleared goal is stored as NULL"
        );
        assert_eq!(stored.version, 3);
        let revisions = repo.revisions(stored.id).await.unwrap();
        let numbers: Vec<_> = revisions.iter().map(|r| r.number).collect();
        assert_eq!(numbers, [1, 2, 3]);
        assert_eq!(revisions[2], r3);
        assert_eq!(revisions[2].note.as_ref().unwrap().as_str(), TRICKY);
        assert_eq!(revisions[2].snapshot, stored.snapshot());
    }
);

dual_test!(
    a_revision_is_read_by_its_number_and_restored_with_its_sources,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let repo = DieselProfileRepository::new(db.clone());
        let w = first_write(ada.id, T0);
        let first = repo.write(w.clone()).await.unwrap().unwrap();
        let theirs = first_write(bob.id, T0);
        repo.write(theirs.clone()).await.unwrap();
        let e = edit(
            &w.profile,
            EditableField::LoveSummary,
            Some("Soup."),
            T0 + Duration::minutes(1),
        );
        repo.write(e.clone()).await.unwrap();

        let id = w.profile.id;
        assert_eq!(repo.revision(id, 1).await.unwrap(), Some(first.clone()));
        assert_eq!(repo.revision(id, 2).await.unwrap().unwrap().number, 2);
        for missing in [0, 3, u32::MAX] {
            assert_eq!(repo.revision(id, missing).await.unwrap(), None, "{missing}");
        }
        assert_eq!(
            repo.revision(theirs.profile.id, 2).await.unwrap(),
            None,
            "numbers are per profile"
        );

        let at = T0 + Duration::minutes(2);
        let t = e
            .profile
            .clone()
            .apply(ProfileEvent::Restore(first.clone()), at)
            .unwrap();
        let restored = repo
            .write(ProfileWrite {
                profile: t.profile.clone(),
                expected_version: Some(e.profile.version),
                revision: t.revision,
                reflection: vec![],
                completes: None,
                events: vec![],
            })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (restored.number, restored.origin),
            (3, RevisionOrigin::ManualEdit)
        );
        assert_eq!(
            restored.note.as_ref().map(Note::as_str),
            Some("restored revision 1")
        );
        let stored = repo.get(ada.id).await.unwrap().unwrap();
        assert_eq!(stored.prose, first.snapshot.prose);
        assert_eq!(stored.sources, first.snapshot.sources);
        assert_eq!(
            stored.sources, w.profile.sources,
            "the quotes come back with the text"
        );
        assert_eq!(stored.sources.count(), 3);
        assert_eq!(repo.revision(id, 3).await.unwrap(), Some(restored));
    }
);

dual_test!(a_stale_version_changes_nothing_at_all, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselProfileRepository::new(db.clone());
    let w = first_write(ada.id, T0);
    repo.write(w.clone()).await.unwrap();
    let winner = edit(
        &w.profile,
        EditableField::LoveSummary,
        Some("first"),
        T0 + Duration::minutes(1),
    );
    repo.write(winner.clone()).await.unwrap();

    let conversations = DieselConversationRepository::new(db.clone());
    let conversation = Conversation::start(ada.id, T0);
    conversations.create(&conversation).await.unwrap();
    let mut loser = edit(
        &w.profile,
        EditableField::LoveSummary,
        Some("second"),
        T0 + Duration::minutes(2),
    );
    loser.reflection = vec![ReflectionMessage::new(
        ada.id,
        Author::Person,
        "hello".into(),
        T0,
    )];
    loser.completes = Some((conversation.id, T0));
    assert!(matches!(repo.write(loser).await, Err(RepoError::Conflict)));

    assert_eq!(repo.get(ada.id).await.unwrap().unwrap(), winner.profile);
    assert_eq!(
        repo.revisions(w.profile.id).await.unwrap().len(),
        2,
        "no revision from the stale write"
    );
    let reflection = DieselReflectionRepository::new(db.clone());
    assert!(
        reflection.list(ada.id).await.unwrap().is_empty(),
        "no reflection turn from the stale write"
    );
    let c = conversations.latest(ada.id).await.unwrap().unwrap();
    assert_eq!(
        c.status,
        ConversationStatus::InProgress,
        "the conversation is not completed"
    );
});

dual_test!(
    extraction_completes_the_conversation_in_the_same_write,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselProfileRepository::new(db.clone());
        let conversations = DieselConversationRepository::new(db.clone());
        let c = Conversation::start(ada.id, T0);
        conversations.create(&c).await.unwrap();
        let done_at = T0 + Duration::hours(1);
        let mut w = first_write(ada.id, done_at);
        w.reflection = vec![ReflectionMessage::new(
            ada.id,
            Author::Coach,
            TRICKY.into(),
            done_at,
        )];
        w.completes = Some((c.id, done_at));
        repo.write(w.clone()).await.unwrap();
        let stored = conversations.latest(ada.id).await.unwrap().unwrap();
        assert_eq!(stored.completed_at, Some(done_at));
        let reflection = DieselReflectionRepository::new(db.clone());
        assert_eq!(reflection.list(ada.id).await.unwrap(), w.reflection);

        // Completing it again (a re-extraction racing the first) rolls that write back entirely.
        let again = edit(
            &w.profile,
            EditableField::LoveSummary,
            Some("again"),
            done_at,
        );
        let again = ProfileWrite {
            completes: Some((c.id, done_at)),
            ..again
        };
        assert!(matches!(repo.write(again).await, Err(RepoError::Conflict)));
        assert_eq!(repo.get(ada.id).await.unwrap().unwrap(), w.profile);
        let id = w.profile.id;
        assert_eq!(
            count(&db, &format!("profile_revision WHERE profile_id = '{id}'")).await,
            1
        );
    }
);

dual_test!(
    concurrent_writes_from_one_version_let_exactly_one_win,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselProfileRepository::new(db.clone());
        let w = first_write(ada.id, T0);
        repo.write(w.clone()).await.unwrap();
        let mut tasks = tokio::task::JoinSet::new();
        for n in 0..8 {
            let (repo, w) = (
                repo.clone(),
                edit(
                    &w.profile,
                    EditableField::LoveSummary,
                    Some(&format!("v{n}")),
                    T0,
                ),
            );
            tasks.spawn(async move { repo.write(w).await });
        }
        let results = tasks.join_all().await;
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1);
        assert!(
            results
                .iter()
                .all(|r| r.is_ok() || matches!(r, Err(RepoError::Conflict)))
        );
        assert_eq!(repo.revisions(w.profile.id).await.unwrap().len(), 2);
    }
);

dual_test!(
    locked_users_page_through_affirmed_profiles_in_id_order,
    |db| {
        let repo = DieselProfileRepository::new(db.clone());
        let mut locked = Vec::new();
        for n in 0..5 {
            let u = user(&db, &format!("p{n}@example.org")).await;
            let w = first_write(u.id, T0);
            repo.write(w.clone()).await.unwrap();
            if n != 2 {
                let t = w
                    .profile
                    .clone()
                    .apply(ProfileEvent::Affirm, T0 + Duration::hours(1))
                    .unwrap();
                let affirm = ProfileWrite {
                    profile: t.profile,
                    expected_version: Some(w.profile.version),
                    revision: t.revision,
                    reflection: vec![],
                    completes: None,
                    events: vec![],
                };
                repo.write(affirm).await.unwrap();
                locked.push(u.id);
            }
        }
        locked.sort();
        let limit = PageLimit::new(3).unwrap();
        let first = repo.locked_users(None, limit).await.unwrap();
        let second = repo
            .locked_users(first.last().copied(), limit)
            .await
            .unwrap();
        assert_eq!(first.len(), 3);
        assert_eq!([first, second].concat(), locked);
        let affirmed = repo.get(locked[0]).await.unwrap().unwrap();
        assert!(affirmed.locked);
        assert_eq!(affirmed.affirmed_at, Some(T0 + Duration::hours(1)));
    }
);

dual_test!(
    many_reads_at_once_each_get_their_own_profile_and_see_the_latest_write,
    |db| {
        let repo = DieselProfileRepository::new(db.clone());
        let mut people = Vec::new();
        for n in 0..24 {
            let u = user(&db, &format!("p{n}@example.org")).await;
            // Every fourth person has no profile.
            let profile = if n % 4 == 3 {
                None
            } else {
                let w = first_write(u.id, T0 + Duration::seconds(n));
                repo.write(w.clone()).await.unwrap();
                Some(w.profile)
            };
            people.push((u.id, profile));
        }
        // Reads from many tasks at once (so they queue and share statements), each person
        // read several times over, through clones of the repository.
        let reads: Vec<_> = (0..240)
            .map(|i| {
                let (id, want) = people[(i * 7) % people.len()].clone();
                let repo = repo.clone();
                tokio::spawn(async move { (repo.get(id).await.unwrap(), want) })
            })
            .collect();
        for read in reads {
            let (got, want) = read.await.unwrap();
            assert_eq!(got, want);
        }
        // A read asked after a write returns sees it, also while other reads are queued.
        let (id, Some(profile)) = people[0].clone() else {
            unreachable!()
        };
        let e = edit(
            &profile,
            EditableField::LoveSummary,
            Some("Gardening."),
            T0 + Duration::hours(1),
        );
        let busy: Vec<_> = (0..40)
            .map(|i| {
                let (other, repo) = (people[1 + i % 20].0, repo.clone());
                tokio::spawn(async move { repo.get(other).await.unwrap() })
            })
            .collect();
        repo.write(e.clone()).await.unwrap();
        assert_eq!(repo.get(id).await.unwrap(), Some(e.profile));
        for read in busy {
            read.await.unwrap();
        }
    }
);
