//! The credential checks against a mocked account store: what reaches the store, what the
//! cache spares it, and how each refusal is told apart.

use domain::RepoError;
use domain::account::{ApiKey, Email, KeyScope, KeyScopes, User};
use domain::ids::{ApiKeyId, SessionId, UserId};
use time::OffsetDateTime;

use super::*;
use crate::store::MockCredentialStore;

const SECRET: &[u8] = b"a test secret of at least thirty-two bytes";

fn user(issuer: &str, email: &str) -> User {
    User {
        id: UserId::new(),
        email: Email::new(email).unwrap(),
        issuer: issuer.into(),
        name: None,
        created_at: OffsetDateTime::now_utc(),
        last_login_at: None,
    }
}

fn key_of(owner: &User, scopes: KeyScopes, expires_at: Option<OffsetDateTime>) -> ApiKey {
    ApiKey {
        id: ApiKeyId::new(),
        user_id: owner.id,
        name: "laptop".into(),
        prefix: "dsk_00000000".into(),
        key_hash: crate::secrets::hash("irrelevant"),
        scopes,
        expires_at,
        created_at: OffsetDateTime::now_utc(),
        last_used_at: None,
    }
}

fn authenticator(
    store: MockCredentialStore,
    operator: Option<Operator>,
) -> Authenticator<MockCredentialStore> {
    Authenticator {
        store,
        jwt: JwtKeys::new(SECRET, "https://discovery.test".into(), "discovery".into()),
        cache: CredentialCache::new(std::time::Duration::from_secs(60)),
        operator,
        admin_emails: vec!["admin@example.org".into()],
    }
}

fn token(
    auth: &Authenticator<MockCredentialStore>,
    user: UserId,
    session: SessionId,
    ttl: i64,
) -> String {
    auth.jwt
        .access_token(
            &user.to_string(),
            &session.to_string(),
            false,
            OffsetDateTime::now_utc(),
            ttl,
        )
        .unwrap()
}

#[tokio::test]
async fn the_operator_key_is_an_admin_without_asking_the_store() {
    let operator_user = user("urn:discovery:operator", "operator@example.org");
    let operator = Operator {
        key_digest: crate::secrets::digest("operator-key-of-32-characters-xx"),
        user: operator_user.clone(),
    };
    // No expectation on the store: any call would panic.
    let auth = authenticator(MockCredentialStore::new(), Some(operator));
    let who = auth
        .api_key("operator-key-of-32-characters-xx")
        .await
        .unwrap();
    assert_eq!(
        who,
        Authenticated {
            user_id: operator_user.id,
            is_admin: true,
            session_id: None,
            key_scopes: None
        }
    );
}

#[tokio::test]
async fn a_key_without_the_prefix_is_refused_before_the_store() {
    let auth = authenticator(MockCredentialStore::new(), None);
    assert!(matches!(
        auth.api_key("not-a-key").await,
        Err(CheckError::Unauthenticated)
    ));
}

#[tokio::test]
async fn a_personal_key_is_looked_up_once_then_remembered_and_is_never_admin() {
    let owner = user("https://id.example.org", "admin@example.org");
    let scopes = KeyScopes::new([KeyScope::Coaching]).unwrap();
    let key = key_of(&owner, scopes, None);
    let presented = format!("{}{}", crate::secrets::API_KEY_PREFIX, "ab".repeat(32));
    let expected_hash = crate::secrets::hash(&presented);
    let mut store = MockCredentialStore::new();
    let answer = (key, owner.clone());
    store
        .expect_api_key_owner()
        .withf(move |hash| *hash == expected_hash)
        .times(1)
        .returning(move |_| Ok(Some(answer.clone())));
    let auth = authenticator(store, None);
    for _ in 0..3 {
        let who = auth.api_key(&presented).await.unwrap();
        assert_eq!(who.user_id, owner.id);
        assert!(!who.is_admin, "a personal key is never an admin credential");
        assert_eq!(who.key_scopes, Some(scopes));
    }
    assert_eq!(auth.cache.user(owner.id).map(|u| u.id), Some(owner.id));
}

#[tokio::test]
async fn a_remembered_key_that_has_since_expired_is_checked_again() {
    let owner = user("https://id.example.org", "ada@example.org");
    let presented = format!("{}{}", crate::secrets::API_KEY_PREFIX, "cd".repeat(32));
    let past = OffsetDateTime::now_utc() - time::Duration::seconds(1);
    let mut store = MockCredentialStore::new();
    store
        .expect_api_key_owner()
        .times(1)
        .returning(|_| Ok(None));
    let auth = authenticator(store, None);
    auth.cache.remember_api_key(
        crate::secrets::digest(&presented),
        crate::cache::KeyOwner {
            user_id: owner.id,
            scopes: KeyScopes::DEFAULT,
            expires_at: Some(past),
        },
    );
    assert!(matches!(
        auth.api_key(&presented).await,
        Err(CheckError::Unauthenticated)
    ));
}

#[tokio::test]
async fn a_store_that_cannot_answer_is_not_an_unknown_key() {
    let presented = format!("{}{}", crate::secrets::API_KEY_PREFIX, "ef".repeat(32));
    let mut store = MockCredentialStore::new();
    store
        .expect_api_key_owner()
        .returning(|_| Err(RepoError::Busy));
    let auth = authenticator(store, None);
    assert!(matches!(
        auth.api_key(&presented).await,
        Err(CheckError::Store(RepoError::Busy))
    ));
    // Nothing was remembered from the failure.
    assert!(
        auth.cache
            .api_key_owner(&crate::secrets::digest(&presented))
            .is_none()
    );
}

#[tokio::test]
async fn a_token_of_an_active_session_passes_and_the_session_is_remembered() {
    let (person, session) = (UserId::new(), SessionId::new());
    let mut store = MockCredentialStore::new();
    store
        .expect_session_is_active()
        .withf(move |id| *id == session)
        .times(1)
        .returning(|_| Ok(true));
    let auth = authenticator(store, None);
    let token = token(&auth, person, session, 300);
    for _ in 0..3 {
        let who = auth.access_token(&token).await.unwrap();
        assert_eq!(
            who,
            Authenticated {
                user_id: person,
                is_admin: false,
                session_id: Some(session),
                key_scopes: None
            }
        );
    }
}

#[tokio::test]
async fn a_token_of_an_ended_session_is_refused() {
    let mut store = MockCredentialStore::new();
    store
        .expect_session_is_active()
        .times(1)
        .returning(|_| Ok(false));
    let auth = authenticator(store, None);
    let token = token(&auth, UserId::new(), SessionId::new(), 300);
    assert!(matches!(
        auth.access_token(&token).await,
        Err(CheckError::Unauthenticated)
    ));
}

#[tokio::test]
async fn forged_and_expired_tokens_never_reach_the_store() {
    let auth = authenticator(MockCredentialStore::new(), None);
    let other = JwtKeys::new(
        b"another secret of at least thirty-two bytes",
        "https://discovery.test".into(),
        "discovery".into(),
    );
    let forged = other
        .access_token(
            &UserId::new().to_string(),
            &SessionId::new().to_string(),
            true,
            OffsetDateTime::now_utc(),
            300,
        )
        .unwrap();
    let expired = token(&auth, UserId::new(), SessionId::new(), -60);
    for bad in [forged.as_str(), expired.as_str(), "not.a.token", ""] {
        assert!(
            matches!(
                auth.access_token(bad).await,
                Err(CheckError::Unauthenticated)
            ),
            "{bad}"
        );
    }
}

#[test]
fn admins_are_listed_e_mails_but_never_dev_login_people() {
    let auth = authenticator(MockCredentialStore::new(), None);
    assert!(auth.is_admin(&user("https://id.example.org", "admin@example.org")));
    assert!(!auth.is_admin(&user("https://id.example.org", "ada@example.org")));
    assert!(!auth.is_admin(&user(DEV_LOGIN_ISSUER, "admin@example.org")));
}
