//! API keys: authentication stamps last use; revoked and foreign keys never authenticate.

use adapters_diesel::DieselApiKeyRepository;
use domain::RepoError;
use domain::account::{ApiKey, TokenHash};
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
