//! The account export (every record of one person, from one snapshot) and the counts over it.

use adapters_diesel::{
    Database, DieselActivityRepository, DieselApiKeyRepository, DieselCheckInRepository,
    DieselConversationRepository, DieselPreferencesRepository, DieselProfileRepository,
    DieselReflectionRepository, DieselSessionRepository, DieselTaskMappingRepository,
    DieselUserRepository,
};
use domain::account::{
    AccountData, ActivityQuery, ApiKey, RefreshToken, Session, Source, TokenHash, UserStats,
};
use domain::discovery::Conversation;
use domain::foundation::Foundation;
use domain::ids::{ApiKeyId, RefreshTokenId, SessionId, UserId};
use domain::integration::TaskMappingQuery;
use domain::pagination::PageLimit;
use domain::ports::{
    ActivityRepository, ApiKeyRepository, CheckInRepository, ConversationRepository,
    PreferencesRepository, ProfileRepository, ReflectionRepository, SessionRepository,
    TaskMappingRepository, UserRepository,
};
use domain::profile::EditableField;
use domain::reflection::{Author, ReflectionMessage};
use time::Duration;
use time::macros::datetime;

use crate::activity::entry;
use crate::cascade::fill;
use crate::checkins::checkin;
use crate::conversations::answer;
use crate::harness::{T0, execute, user};
use crate::profiles::edit;
use crate::task_mappings::input;

fn hash(n: u8) -> TokenHash {
    TokenHash::from_hex(&format!("{n:02x}").repeat(32)).unwrap()
}

fn sorted_by<T, K: Ord>(items: &[T], key: impl Fn(&T) -> K) -> bool {
    items.windows(2).all(|w| key(&w[0]) <= key(&w[1]))
}

/// Records beyond `fill`'s one of each kind, so that order, revoked keys and revoked sessions
/// show; returns the revoked session's id.
async fn more_records(db: &Database, ada: UserId) -> SessionId {
    // A second conversation: the first (from `fill`) is completed first.
    execute(
        db,
        format!(
            "UPDATE discovery_conversation SET completed_at = '2026-11-22 10:30:00' \
             WHERE user_id = '{ada}'"
        ),
    )
    .await;
    let conversations = DieselConversationRepository::new(db.clone());
    let second = Conversation::start(ada, T0 + Duration::hours(1));
    conversations.create(&second).await.unwrap();
    for step in [1, 2] {
        conversations
            .save_answer(second.id, &answer(step, "again", T0 + Duration::hours(1)))
            .await
            .unwrap();
    }
    let profiles = DieselProfileRepository::new(db.clone());
    let profile = profiles.get(ada).await.unwrap().unwrap();
    profiles
        .write(edit(
            &profile,
            EditableField::MissionSummary,
            Some("Teaching."),
            T0 + Duration::hours(2),
        ))
        .await
        .unwrap();
    DieselReflectionRepository::new(db.clone())
        .append(&[ReflectionMessage::new(
            ada,
            Author::Coach,
            "And then?".into(),
            T0 + Duration::hours(1),
        )])
        .await
        .unwrap();
    DieselCheckInRepository::new(db.clone())
        .insert(&checkin(ada, T0 - Duration::days(7)))
        .await
        .unwrap();
    DieselTaskMappingRepository::new(db.clone())
        .upsert(
            ada,
            &input("t-0", Foundation::Mission, 15, T0 - Duration::days(1)),
            T0,
        )
        .await
        .unwrap();
    DieselActivityRepository::new(db.clone())
        .record(&[entry(
            Some(ada),
            T0 - Duration::hours(1),
            "profile.edit",
            Some(Source::Api),
        )])
        .await
        .unwrap();
    let sessions = DieselSessionRepository::new(db.clone());
    let old = Session {
        id: SessionId::new(),
        user_id: ada,
        created_at: T0 - Duration::days(3),
        last_used_at: T0 - Duration::days(3),
        expires_at: T0 + Duration::days(27),
        user_agent: Some("Firefox".into()),
        ip: Some("192.0.2.1".into()),
        revoked_at: None,
    };
    let token = RefreshToken {
        id: RefreshTokenId::new(),
        session_id: old.id,
        token_hash: hash(201),
        created_at: old.created_at,
        expires_at: old.expires_at,
        revoked_at: None,
    };
    sessions.create(&old, &token).await.unwrap();
    assert!(sessions.revoke(ada, old.id, T0).await.unwrap());
    let keys = DieselApiKeyRepository::new(db.clone());
    for (n, at, revoke) in [
        (202, T0 - Duration::days(2), false),
        (203, T0 + Duration::hours(1), true),
    ] {
        let key = ApiKey {
            id: ApiKeyId::new(),
            user_id: ada,
            name: format!("key {n}"),
            prefix: format!("dsk_{n}"),
            key_hash: hash(n),
            scopes: domain::account::KeyScopes::ALL,
            expires_at: None,
            created_at: at,
            last_used_at: None,
        };
        keys.create(&key).await.unwrap();
        if revoke {
            assert!(keys.revoke(ada, key.id, T0).await.unwrap());
        }
    }
    old.id
}

async fn export(db: &Database, user: UserId) -> AccountData {
    DieselUserRepository::new(db.clone())
        .export(user)
        .await
        .unwrap()
        .unwrap()
}

dual_test!(
    the_export_holds_every_record_of_the_person_and_nobody_elses,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        fill(&db, ada.id, 1).await;
        fill(&db, bob.id, 2).await;
        let revoked_session = more_records(&db, ada.id).await;
        let a = export(&db, ada.id).await;

        // Each kind, compared with what the other ports return for Ada (oldest first).
        let users = DieselUserRepository::new(db.clone());
        assert_eq!(a.user, users.get(ada.id).await.unwrap().unwrap());
        let profiles = DieselProfileRepository::new(db.clone());
        let profile = profiles.get(ada.id).await.unwrap().unwrap();
        assert_eq!(a.profile.as_ref(), Some(&profile));
        let revisions = profiles.revisions(profile.id).await.unwrap();
        assert_eq!(revisions.len(), 2);
        assert_eq!(a.revisions, revisions);
        let reflection = DieselReflectionRepository::new(db.clone())
            .list(ada.id)
            .await
            .unwrap();
        assert_eq!(reflection.len(), 2);
        assert_eq!(a.reflection, reflection);
        assert_eq!(
            a.preferences,
            DieselPreferencesRepository::new(db.clone())
                .get(ada.id)
                .await
                .unwrap()
        );
        assert!(a.preferences.is_some());
        let mut checkins = DieselCheckInRepository::new(db.clone())
            .list(ada.id, PageLimit::new(50).unwrap(), None)
            .await
            .unwrap()
            .items;
        checkins.reverse();
        assert_eq!(checkins.len(), 2);
        assert_eq!(a.checkins, checkins);
        let mut mappings = DieselTaskMappingRepository::new(db.clone())
            .list(
                ada.id,
                &TaskMappingQuery {
                    limit: PageLimit::new(50).unwrap(),
                    ..TaskMappingQuery::default()
                },
            )
            .await
            .unwrap()
            .items;
        mappings.reverse();
        assert_eq!(mappings.len(), 2);
        assert_eq!(a.task_mappings, mappings);
        let mut activity = DieselActivityRepository::new(db.clone())
            .list(&ActivityQuery {
                user_id: Some(ada.id),
                limit: PageLimit::new(50).unwrap(),
                before: None,
            })
            .await
            .unwrap()
            .items;
        activity.reverse();
        assert_eq!(activity.len(), 2);
        assert_eq!(a.activity, activity);
        assert!(
            a.activity
                .iter()
                .all(|e| e.ip.is_some() && e.user_agent.is_some())
        );
        let mut keys = DieselApiKeyRepository::new(db.clone())
            .list(ada.id)
            .await
            .unwrap();
        keys.reverse();
        assert_eq!(keys.len(), 2, "the revoked key is left out");
        assert_eq!(a.api_keys, keys);

        // Conversations with their answers, the completed one first.
        assert_eq!(a.conversations.len(), 2);
        assert!(a.conversations[0].completed_at.is_some());
        assert_eq!(a.conversations[0].answers().count(), 1);
        assert_eq!(
            Some(&a.conversations[1]),
            DieselConversationRepository::new(db.clone())
                .latest(ada.id)
                .await
                .unwrap()
                .as_ref()
        );
        assert_eq!(a.conversations[1].answers().count(), 2);
        // Sessions, open or not.
        assert_eq!(a.sessions.len(), 2);
        assert_eq!(a.sessions[0].id, revoked_session);
        assert!(a.sessions[0].revoked_at.is_some());
        assert!(a.sessions[1].revoked_at.is_none());

        // Oldest first, and nothing of Bob's.
        assert!(sorted_by(&a.conversations, |c| (c.created_at, c.id)));
        assert!(sorted_by(&a.revisions, |r| r.number));
        assert!(sorted_by(&a.reflection, |m| (m.created_at, m.id)));
        assert!(sorted_by(&a.checkins, |c| (c.created_at, c.id)));
        assert!(sorted_by(&a.task_mappings, |m| (m.occurred_at, m.id)));
        assert!(sorted_by(&a.activity, |e| (e.at, e.id)));
        assert!(sorted_by(&a.sessions, |s| (s.created_at, s.id)));
        assert!(sorted_by(&a.api_keys, |k| (k.created_at, k.id)));
        assert!(a.conversations.iter().all(|c| c.user_id == ada.id));
        assert!(a.revisions.iter().all(|r| r.profile_id == profile.id));
        assert!(a.reflection.iter().all(|m| m.user_id == ada.id));
        assert!(a.checkins.iter().all(|c| c.user_id == ada.id));
        assert!(a.task_mappings.iter().all(|m| m.user_id == ada.id));
        assert!(a.activity.iter().all(|e| e.user_id == Some(ada.id)));
        assert!(a.sessions.iter().all(|s| s.user_id == ada.id));
        assert!(a.api_keys.iter().all(|k| k.user_id == ada.id));

        // Bob's export holds exactly what `fill` gave him.
        let b = export(&db, bob.id).await;
        assert_eq!(b.user, bob);
        let counts = [
            b.conversations.len(),
            b.revisions.len(),
            b.reflection.len(),
            b.checkins.len(),
            b.task_mappings.len(),
            b.activity.len(),
            b.sessions.len(),
            b.api_keys.len(),
        ];
        assert_eq!(counts, [1; 8]);
        assert_eq!(b.profile.map(|p| p.user_id), Some(bob.id));
        assert_eq!(b.preferences.map(|p| p.user_id), Some(bob.id));

        assert_eq!(users.export(UserId::new()).await.unwrap(), None);
    }
);

dual_test!(an_export_is_one_snapshot_while_writes_commit, |db| {
    let ada = user(&db, "ada@example.org").await;
    let profiles = DieselProfileRepository::new(db.clone());
    profiles
        .write(crate::profiles::first_write(ada.id, T0))
        .await
        .unwrap();
    // Each write commits a new profile version, its revision and one reflection turn together,
    // so any one snapshot has version == revisions == turns + 1. Between the export's reads of
    // the profile, the revisions and the dialogue, a reader without a snapshot sees a write land.
    let writer = tokio::spawn({
        let profiles = profiles.clone();
        async move {
            for n in 0..40 {
                let at = T0 + Duration::minutes(n + 1);
                let current = profiles.get(ada.id).await.unwrap().unwrap();
                let text = format!("Mission {n}");
                let mut w = edit(&current, EditableField::MissionSummary, Some(&text), at);
                w.reflection = vec![ReflectionMessage::new(ada.id, Author::Person, text, at)];
                profiles.write(w).await.unwrap();
            }
        }
    });
    let users = DieselUserRepository::new(db.clone());
    let mut exports = 0;
    while !writer.is_finished() {
        let a = users.export(ada.id).await.unwrap().unwrap();
        let version = a.profile.as_ref().unwrap().version;
        let seen = (version, a.revisions.len(), a.reflection.len() + 1);
        assert_eq!(
            seen,
            (
                version,
                usize::try_from(version).unwrap(),
                usize::try_from(version).unwrap()
            ),
            "(version, revisions, turns + 1) from one snapshot"
        );
        exports += 1;
    }
    writer.await.unwrap();
    assert!(exports > 1, "the export ran while the writes did");
    let a = users.export(ada.id).await.unwrap().unwrap();
    assert_eq!(a.revisions.len(), 41);
    assert_eq!(a.reflection.len(), 40);
});

dual_test!(the_counts_are_exact_and_only_the_persons, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    let since = datetime!(2026-11-20 00:00 UTC);
    let hours = |h| since + Duration::hours(h);
    DieselActivityRepository::new(db.clone())
        .record(&[
            entry(
                Some(ada.id),
                since - Duration::microseconds(1),
                "old",
                Some(Source::Web),
            ),
            entry(Some(ada.id), since, "edge", Some(Source::Web)),
            entry(Some(ada.id), hours(1), "a", Some(Source::Api)),
            entry(Some(ada.id), hours(2), "b", Some(Source::Mcp)),
            // The person's, though no source was recorded: counted, but under no source.
            entry(Some(ada.id), hours(3), "c", None),
            entry(Some(bob.id), hours(1), "bob", Some(Source::Web)),
            entry(Some(bob.id), hours(9), "bob", Some(Source::Mcp)),
            entry(None, hours(1), "auth.login", None),
        ])
        .await
        .unwrap();
    let mappings = DieselTaskMappingRepository::new(db.clone());
    for (who, external) in [(ada.id, "a-1"), (ada.id, "a-2"), (bob.id, "b-1")] {
        mappings
            .upsert(who, &input(external, Foundation::Love, 10, since), since)
            .await
            .unwrap();
    }
    // An update is still one mapping.
    mappings
        .upsert(ada.id, &input("a-1", Foundation::Love, 20, since), since)
        .await
        .unwrap();
    let checkins = DieselCheckInRepository::new(db.clone());
    for (who, days) in [(ada.id, 0), (ada.id, 1), (ada.id, 2), (bob.id, 0)] {
        checkins
            .insert(&checkin(who, since - Duration::days(days)))
            .await
            .unwrap();
    }
    let turn = |who, author| ReflectionMessage::new(who, author, "turn".into(), since);
    DieselReflectionRepository::new(db.clone())
        .append(&[
            turn(ada.id, Author::Person),
            turn(ada.id, Author::Coach),
            turn(ada.id, Author::Person),
            turn(bob.id, Author::Person),
        ])
        .await
        .unwrap();

    let users = DieselUserRepository::new(db.clone());
    let stats = users.stats(ada.id, since).await.unwrap();
    assert_eq!(
        stats,
        UserStats {
            total_requests: 5,
            requests_since: 4,
            by_source: [(Source::Web, 2), (Source::Api, 1), (Source::Mcp, 1)].into(),
            task_mappings: 2,
            checkins: 3,
            reflection_turns: 2,
            first_activity_at: Some(since - Duration::microseconds(1)),
            last_activity_at: Some(hours(3)),
        }
    );
    // `since` is inclusive: a microsecond later the entry at `since` drops out.
    let later = users
        .stats(ada.id, since + Duration::microseconds(1))
        .await
        .unwrap();
    assert_eq!(later.requests_since, 3);
    assert_eq!(
        UserStats {
            requests_since: 4,
            ..later
        },
        stats
    );
    let bobs = users.stats(bob.id, since).await.unwrap();
    assert_eq!(
        (
            bobs.total_requests,
            bobs.requests_since,
            bobs.task_mappings,
            bobs.checkins
        ),
        (2, 2, 1, 1)
    );
    assert_eq!(bobs.by_source, [(Source::Web, 1), (Source::Mcp, 1)].into());
    assert_eq!(bobs.reflection_turns, 1);

    let nobody = user(&db, "new@example.org").await;
    assert_eq!(
        users.stats(nobody.id, since).await.unwrap(),
        UserStats::default()
    );
    assert_eq!(
        users.stats(UserId::new(), since).await.unwrap(),
        UserStats::default()
    );
});
