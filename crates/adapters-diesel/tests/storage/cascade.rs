//! Deleting a person deletes every row that belongs to them, in every table, and nobody else's.

use adapters_diesel::{
    Database, DieselActivityRepository, DieselApiKeyRepository, DieselCheckInRepository,
    DieselConversationRepository, DieselPreferencesRepository, DieselProfileRepository,
    DieselReflectionRepository, DieselSessionRepository, DieselTaskMappingRepository,
    DieselUserRepository,
};
use domain::account::{ActivityEntry, ApiKey, RefreshToken, Session, Source, TokenHash};
use domain::coaching::{CoachingPreferences, PreferenceSource, derive_preferences};
use domain::discovery::Conversation;
use domain::foundation::Foundation;
use domain::ids::{ActivityId, ApiKeyId, RefreshTokenId, SessionId, UserId};
use domain::ports::{
    ActivityRepository, ApiKeyRepository, CheckInRepository, ConversationRepository,
    PreferencesRepository, ProfileRepository, ReflectionRepository, SessionRepository,
    TaskMappingRepository, UserRepository,
};
use domain::profile::Triad;
use domain::reflection::{Author, ReflectionMessage};
use time::Duration;

use crate::checkins::checkin;
use crate::conversations::answer;
use crate::harness::{T0, count, user};
use crate::profiles::first_write;
use crate::task_mappings::input;

/// Every table, with the condition that picks one person's rows.
const OWNED: [(&str, &str); 13] = [
    ("users", "id = '{u}'"),
    ("sessions", "user_id = '{u}'"),
    (
        "refresh_tokens",
        "session_id IN (SELECT id FROM sessions WHERE user_id = '{u}')",
    ),
    ("api_keys", "user_id = '{u}'"),
    ("activity_log", "user_id = '{u}'"),
    ("discovery_conversation", "user_id = '{u}'"),
    (
        "discovery_answer",
        "conversation_id IN (SELECT id FROM discovery_conversation WHERE user_id = '{u}')",
    ),
    ("discovery_profile", "user_id = '{u}'"),
    (
        "profile_revision",
        "profile_id IN (SELECT id FROM discovery_profile WHERE user_id = '{u}')",
    ),
    ("reflection_message", "user_id = '{u}'"),
    ("coaching_preferences", "user_id = '{u}'"),
    ("coaching_checkin", "user_id = '{u}'"),
    ("task_mapping", "user_id = '{u}'"),
];

async fn owned_counts(db: &Database, user: UserId) -> Vec<(&'static str, i64)> {
    let mut counts = Vec::new();
    for (table, condition) in OWNED {
        let condition = condition.replace("{u}", &user.to_string());
        counts.push((
            table,
            count(db, &format!("{table} WHERE {condition}")).await,
        ));
    }
    counts
}

/// One record of every kind for `user`; `seed` keeps the hashes of two people apart.
pub async fn fill(db: &Database, user: UserId, seed: u8) {
    let session = Session {
        id: SessionId::new(),
        user_id: user,
        created_at: T0,
        last_used_at: T0,
        expires_at: T0 + Duration::days(30),
        user_agent: None,
        ip: None,
        revoked_at: None,
    };
    let token = RefreshToken {
        id: RefreshTokenId::new(),
        session_id: session.id,
        token_hash: TokenHash::from_hex(&format!("{seed:02x}").repeat(32)).unwrap(),
        created_at: T0,
        expires_at: T0 + Duration::days(30),
        revoked_at: None,
    };
    DieselSessionRepository::new(db.clone())
        .create(&session, &token)
        .await
        .unwrap();
    let key = ApiKey {
        id: ApiKeyId::new(),
        user_id: user,
        name: "tracker".into(),
        prefix: "dsk_1234".into(),
        key_hash: TokenHash::from_hex(&format!("{:02x}", seed + 100).repeat(32)).unwrap(),
        scopes: domain::account::KeyScopes::ALL,
        expires_at: None,
        created_at: T0,
        last_used_at: None,
    };
    DieselApiKeyRepository::new(db.clone())
        .create(&key)
        .await
        .unwrap();
    let activity = ActivityEntry {
        id: ActivityId::new(),
        user_id: Some(user),
        at: T0,
        action: "profile.get".into(),
        method: "GET".into(),
        path: "/discovery/profile/me".into(),
        status: 200,
        source: Some(Source::Web),
        duration_ms: 3,
        request_id: "r".into(),
        ip: Some(format!("198.51.100.{seed}")),
        user_agent: Some(format!("Mozilla/5.0 seed {seed}")),
    };
    DieselActivityRepository::new(db.clone())
        .record(&[activity])
        .await
        .unwrap();
    let conversations = DieselConversationRepository::new(db.clone());
    let conversation = Conversation::start(user, T0);
    conversations.create(&conversation).await.unwrap();
    conversations
        .save_answer(conversation.id, &answer(1, "love", T0))
        .await
        .unwrap();
    DieselProfileRepository::new(db.clone())
        .write(first_write(user, T0))
        .await
        .unwrap();
    let turn = ReflectionMessage::new(user, Author::Person, "hi".into(), T0);
    DieselReflectionRepository::new(db.clone())
        .append(&[turn])
        .await
        .unwrap();
    let preferences = CoachingPreferences {
        user_id: user,
        settings: derive_preferences(Triad::Heart),
        source: PreferenceSource::Derived,
        updated_at: T0,
    };
    DieselPreferencesRepository::new(db.clone())
        .put(&preferences)
        .await
        .unwrap();
    DieselCheckInRepository::new(db.clone())
        .insert(&checkin(user, T0))
        .await
        .unwrap();
    DieselTaskMappingRepository::new(db.clone())
        .upsert(user, &input("t-1", Foundation::Love, 30, T0), T0)
        .await
        .unwrap();
}

dual_test!(
    deleting_a_person_removes_their_rows_from_every_table_and_keeps_others,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        fill(&db, ada.id, 1).await;
        fill(&db, bob.id, 2).await;
        let bobs_before = owned_counts(&db, bob.id).await;
        for (table, n) in owned_counts(&db, ada.id).await {
            assert!(n >= 1, "the fixture fills {table}");
        }
        assert!(
            DieselUserRepository::new(db.clone())
                .delete(ada.id)
                .await
                .unwrap()
        );
        for (table, n) in owned_counts(&db, ada.id).await {
            assert_eq!(n, 0, "{table} still holds rows of the deleted person");
        }
        // What identified the person and where they connected from goes too.
        assert_eq!(
            count(&db, "activity_log WHERE ip = '198.51.100.1'").await,
            0
        );
        assert_eq!(
            count(&db, "activity_log WHERE user_agent LIKE '% seed 1'").await,
            0
        );
        assert_eq!(
            count(
                &db,
                "users WHERE oidc_subject = 'subject-of-ada@example.org'"
            )
            .await,
            0
        );
        assert_eq!(
            count(&db, "activity_log WHERE ip = '198.51.100.2'").await,
            1
        );
        assert_eq!(owned_counts(&db, bob.id).await, bobs_before);
        for (table, n) in &bobs_before {
            assert_eq!(
                count(&db, table).await,
                *n,
                "{table} holds only the other person's rows"
            );
        }
    }
);
