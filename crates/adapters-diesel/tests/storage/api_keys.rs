//! API keys: scopes and expiry round trip; authentication stamps last use; revoked and foreign
//! keys never authenticate.

use adapters_diesel::DieselApiKeyRepository;
use domain::RepoError;
use domain::account::{ApiKey, KeyScope, KeyScopes, TokenHash};
use domain::ids::{ApiKeyId, UserId};
use domain::ports::ApiKeyRepository;
use time::{Duration, OffsetDateTime};

use crate::harness::{T0, TRICKY, user};

fn key(user: UserId, n: u8, at: OffsetDateTime) -> ApiKey {
    ApiKey {
        id: ApiKeyId::new(),
        user_id: user,
        name: format!("{TRICKY} {n}"),
        prefix: format!("dsk_{n:02}"),
        key_hash: TokenHash::from_hex(&format!("{n:02x}").repeat(32)).unwrap(),
        scopes: KeyScopes::DEFAULT,
        expires_at: None,
        created_at: at,
        last_used_at: None,
    }
}

dual_test!(authenticating_a_key_stamps_its_last_use, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselApiKeyRepository::new(db.clone());
    let k = key(ada.id, 1, T0);
    repo.create(&k).await.unwrap();
    let used = T0 + Duration::minutes(5);
    let found = repo.authenticate(&k.key_hash, used).await.unwrap().unwrap();
    assert_eq!(
        found,
        ApiKey {
            last_used_at: Some(used),
            ..k.clone()
        }
    );
    assert_eq!(repo.list(ada.id).await.unwrap(), [found]);
    let unknown = TokenHash::from_hex(&"f".repeat(64)).unwrap();
    assert_eq!(repo.authenticate(&unknown, used).await.unwrap(), None);
});

/// The stored `last_used_at` of the user's only key.
async fn stored_last_use(repo: &DieselApiKeyRepository, user: UserId) -> Option<OffsetDateTime> {
    let keys = repo.list(user).await.unwrap();
    assert_eq!(keys.len(), 1);
    keys[0].last_used_at
}

dual_test!(
    authenticating_writes_the_last_use_at_most_once_a_minute,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselApiKeyRepository::new(db.clone());
        let k = key(ada.id, 1, T0);
        repo.create(&k).await.unwrap();
        let first = T0 + Duration::minutes(5);
        let found = repo
            .authenticate(&k.key_hash, first)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(found.last_used_at, Some(first), "the first use is stamped");
        assert_eq!(stored_last_use(&repo, ada.id).await, Some(first));

        // Within the minute (its last instant included) the key authenticates, reporting and
        // keeping the stamp of the first use: nothing is written.
        for later in [
            first + Duration::seconds(1),
            first + Duration::seconds(30),
            first + Duration::minutes(1),
        ] {
            let again = repo
                .authenticate(&k.key_hash, later)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(again.last_used_at, Some(first), "at {later}");
            assert_eq!(
                stored_last_use(&repo, ada.id).await,
                Some(first),
                "at {later}"
            );
        }

        // Past the minute it is written again, and the new stamp starts the next minute.
        let next = first + Duration::minutes(1) + Duration::microseconds(1);
        let again = repo.authenticate(&k.key_hash, next).await.unwrap().unwrap();
        assert_eq!(again.last_used_at, Some(next));
        assert_eq!(stored_last_use(&repo, ada.id).await, Some(next));
        let soon = next + Duration::seconds(59);
        repo.authenticate(&k.key_hash, soon).await.unwrap().unwrap();
        assert_eq!(stored_last_use(&repo, ada.id).await, Some(next));
        let much_later = next + Duration::days(2);
        repo.authenticate(&k.key_hash, much_later)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored_last_use(&repo, ada.id).await, Some(much_later));

        // A clock that went back never moves the stamp backwards.
        repo.authenticate(&k.key_hash, T0).await.unwrap().unwrap();
        assert_eq!(stored_last_use(&repo, ada.id).await, Some(much_later));
    }
);

dual_test!(
    revoked_keys_stop_authenticating_and_only_their_owner_revokes_them,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let repo = DieselApiKeyRepository::new(db.clone());
        let older = key(ada.id, 1, T0);
        let newer = key(ada.id, 2, T0 + Duration::hours(1));
        repo.create(&older).await.unwrap();
        repo.create(&newer).await.unwrap();
        assert_eq!(
            repo.list(ada.id).await.unwrap(),
            [newer.clone(), older.clone()],
            "newest first"
        );
        assert!(repo.list(bob.id).await.unwrap().is_empty());

        assert!(
            !repo.revoke(bob.id, older.id, T0).await.unwrap(),
            "not Bob's"
        );
        assert!(
            repo.authenticate(&older.key_hash, T0)
                .await
                .unwrap()
                .is_some()
        );
        assert!(repo.revoke(ada.id, older.id, T0).await.unwrap());
        assert!(
            !repo.revoke(ada.id, older.id, T0).await.unwrap(),
            "already revoked"
        );
        assert_eq!(repo.authenticate(&older.key_hash, T0).await.unwrap(), None);
        assert_eq!(repo.list(ada.id).await.unwrap(), [newer]);
    }
);

dual_test!(a_duplicate_key_hash_is_a_conflict, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselApiKeyRepository::new(db.clone());
    repo.create(&key(ada.id, 1, T0)).await.unwrap();
    assert!(matches!(
        repo.create(&key(ada.id, 1, T0)).await,
        Err(RepoError::Conflict)
    ));
});

dual_test!(scopes_and_expiry_round_trip, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselApiKeyRepository::new(db.clone());
    let scoped = ApiKey {
        scopes: KeyScopes::new([KeyScope::ProfileRead, KeyScope::Coaching]).unwrap(),
        expires_at: Some(T0 + Duration::days(30)),
        ..key(ada.id, 7, T0)
    };
    repo.create(&scoped).await.unwrap();
    let found = repo
        .authenticate(&scoped.key_hash, T0)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.scopes, scoped.scopes);
    assert_eq!(found.expires_at, scoped.expires_at);
    assert_eq!(repo.list(ada.id).await.unwrap()[0].scopes, scoped.scopes);
});
