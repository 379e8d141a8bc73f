//! A short memory of credentials checked recently — access tokens verified, active sessions,
//! API-key owners and the users behind them — so an authenticated request needs no database
//! read, and a token seen again is not verified again, in the common case.
//!
//! Why it is safe: entries live at most `AUTH_CACHE_SECONDS` (a second by default), only positive
//! answers are kept (a revoked or unknown credential is always checked against the database),
//! and every change made through this instance (revoking a session or key, signing out,
//! deleting an account, signing in) forgets the affected entries at once. A verified token needs
//! no forgetting when its session ends: what it says cannot change, its expiry is checked at
//! every use, and whether its session is still active is the session entry's business (deleting
//! an account forgets tokens too, with everything else). Another instance of
//! the service sees a revocation within the expiry. `AUTH_CACHE_SECONDS=0` turns it off.

use std::time::Duration;

use domain::account::{KeyScopes, User};
use domain::ids::{SessionId, UserId};
use moka::sync::Cache;

use crate::jwt::LEEWAY_SECONDS;
use crate::secrets::{SecretDigest, digest};

/// Who an API key acts as, and within which scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyOwner {
    pub user_id: UserId,
    pub scopes: KeyScopes,
    /// When the key stops working: checked at every use, as a token's expiry is.
    pub expires_at: Option<time::OffsetDateTime>,
}

/// What a verified access token says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifiedToken {
    pub user_id: UserId,
    pub session_id: SessionId,
    pub is_admin: bool,
    /// Its `exp`, in seconds since the epoch.
    pub expires_at: u64,
}

/// Bounded so a flood of distinct credentials cannot grow memory without limit.
const CAPACITY: u64 = 50_000;

/// The recently checked credentials of this process.
pub struct CredentialCache {
    /// `None` when caching is turned off.
    inner: Option<Inner>,
}

struct Inner {
    /// By the token's SHA-256: the process never keeps a bearer token it has answered.
    tokens: Cache<SecretDigest, VerifiedToken>,
    sessions: Cache<SessionId, ()>,
    /// By the key's SHA-256, so a hit needs no hex encoding of it.
    api_keys: Cache<SecretDigest, KeyOwner>,
    users: Cache<UserId, User>,
}

/// A summary, as a cache's contents (up to 200,000 entries, people's names and e-mails among
/// them) are no one's to read in a log: whether it is on and how many entries each part holds.
/// It hides no secret: the keys are digests, whose own `Debug` shows none of them.
impl std::fmt::Debug for CredentialCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut summary = f.debug_struct("CredentialCache");
        summary.field("enabled", &self.inner.is_some());
        if let Some(c) = &self.inner {
            summary
                .field("tokens", &c.tokens.entry_count())
                .field("sessions", &c.sessions.entry_count())
                .field("api_keys", &c.api_keys.entry_count())
                .field("users", &c.users.entry_count());
        }
        summary.finish()
    }
}

fn cache<K, V>(ttl: Duration, capacity: u64) -> Cache<K, V>
where
    K: std::hash::Hash + Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    Cache::builder()
        .max_capacity(capacity)
        .time_to_live(ttl)
        .build()
}

impl CredentialCache {
    /// Entries expire after `ttl`; a zero `ttl` turns the cache off.
    #[must_use]
    pub fn new(ttl: Duration) -> Self {
        let inner = (!ttl.is_zero()).then(|| Inner {
            tokens: cache(ttl, CAPACITY),
            sessions: cache(ttl, CAPACITY),
            api_keys: cache(ttl, CAPACITY),
            users: cache(ttl, CAPACITY),
        });
        Self { inner }
    }

    /// What `token` said when it was verified, unless it has expired by `now` (seconds since
    /// the epoch, with the same leeway as a full verification).
    #[must_use]
    pub fn verified_token(&self, token: &str, now: u64) -> Option<VerifiedToken> {
        self.inner
            .as_ref()
            .and_then(|c| c.tokens.get(&digest(token)))
            .filter(|v| v.expires_at.saturating_add(LEEWAY_SECONDS) >= now)
    }

    /// Only for a token that passed every check of `JwtKeys::verify_access`.
    pub fn remember_verified_token(&self, token: &str, verified: VerifiedToken) {
        if let Some(c) = &self.inner {
            c.tokens.insert(digest(token), verified);
        }
    }

    /// Whether the session was found active within the expiry.
    #[must_use]
    pub fn session_is_active(&self, id: SessionId) -> bool {
        self.inner
            .as_ref()
            .is_some_and(|c| c.sessions.contains_key(&id))
    }

    pub fn remember_active_session(&self, id: SessionId) {
        if let Some(c) = &self.inner {
            c.sessions.insert(id, ());
        }
    }

    pub fn forget_session(&self, id: SessionId) {
        if let Some(c) = &self.inner {
            c.sessions.invalidate(&id);
        }
    }

    /// For revocations that name no session (sign-out by refresh token, refresh re-use).
    pub fn forget_all_sessions(&self) {
        if let Some(c) = &self.inner {
            c.sessions.invalidate_all();
        }
    }

    #[must_use]
    pub fn api_key_owner(&self, digest: &SecretDigest) -> Option<KeyOwner> {
        self.inner.as_ref().and_then(|c| c.api_keys.get(digest))
    }

    pub fn remember_api_key(&self, digest: SecretDigest, owner: KeyOwner) {
        if let Some(c) = &self.inner {
            c.api_keys.insert(digest, owner);
        }
    }

    /// Revoking a key names it by id, not by hash; revocations are rare, so all are forgotten.
    pub fn forget_api_keys(&self) {
        if let Some(c) = &self.inner {
            c.api_keys.invalidate_all();
        }
    }

    #[must_use]
    pub fn user(&self, id: UserId) -> Option<User> {
        self.inner.as_ref().and_then(|c| c.users.get(&id))
    }

    pub fn remember_user(&self, user: User) {
        if let Some(c) = &self.inner {
            c.users.insert(user.id, user);
        }
    }

    pub fn forget_user(&self, id: UserId) {
        if let Some(c) = &self.inner {
            c.users.invalidate(&id);
        }
    }

    /// After an account is deleted: nothing of it may be served from memory.
    pub fn forget_everything(&self) {
        if let Some(c) = &self.inner {
            c.tokens.invalidate_all();
            c.sessions.invalidate_all();
            c.api_keys.invalidate_all();
            c.users.invalidate_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::account::{Email, User};

    fn user() -> User {
        User {
            id: UserId::new(),
            email: Email::new("ada@example.org").unwrap(),
            issuer: "https://id.example.org".into(),
            name: Some("Ada".into()),
            created_at: time::OffsetDateTime::now_utc(),
            last_login_at: None,
        }
    }

    fn token_of(user_id: UserId, expires_at: u64) -> VerifiedToken {
        VerifiedToken {
            user_id,
            session_id: SessionId::new(),
            is_admin: false,
            expires_at,
        }
    }

    #[test]
    fn remembered_sessions_are_forgotten_on_revocation() {
        let cache = CredentialCache::new(Duration::from_secs(60));
        let (a, b) = (SessionId::new(), SessionId::new());
        assert!(!cache.session_is_active(a));
        cache.remember_active_session(a);
        cache.remember_active_session(b);
        assert!(cache.session_is_active(a));
        cache.forget_session(a);
        assert!(!cache.session_is_active(a) && cache.session_is_active(b));
        cache.forget_all_sessions();
        assert!(!cache.session_is_active(b));
    }

    #[test]
    fn a_verified_token_is_remembered_until_it_expires() {
        let cache = CredentialCache::new(Duration::from_secs(60));
        let verified = token_of(UserId::new(), 1_000);
        assert_eq!(cache.verified_token("a.b.c", 900), None);
        cache.remember_verified_token("a.b.c", verified);
        assert_eq!(cache.verified_token("a.b.c", 900), Some(verified));
        assert_eq!(
            cache.verified_token("a.b.x", 900),
            None,
            "only the same token"
        );
        // Accepted as long as a full verification would accept it, then never again.
        assert_eq!(
            cache.verified_token("a.b.c", 1_000 + LEEWAY_SECONDS),
            Some(verified)
        );
        assert_eq!(cache.verified_token("a.b.c", 1_001 + LEEWAY_SECONDS), None);
    }

    #[test]
    fn its_debug_is_a_summary_without_a_token_or_a_person() {
        let cache = CredentialCache::new(Duration::from_secs(60));
        let person = user();
        cache.remember_verified_token("eyJhbGc.the-whole-token.sig", token_of(person.id, 1_000));
        let owner = KeyOwner {
            user_id: person.id,
            scopes: KeyScopes::DEFAULT,
            expires_at: None,
        };
        cache.remember_api_key(digest("dsk_the-key"), owner);
        cache.remember_user(person.clone());
        let shown = format!("{cache:?}");
        assert!(
            shown.starts_with("CredentialCache { enabled: true, tokens: "),
            "{shown}"
        );
        for private in ["the-whole-token", "the-key", "ada@example.org", "Ada"] {
            assert!(!shown.contains(private), "{private} in {shown}");
        }
        let off = format!("{:?}", CredentialCache::new(Duration::ZERO));
        assert_eq!(off, "CredentialCache { enabled: false }");
    }

    #[test]
    fn entries_expire() {
        let cache = CredentialCache::new(Duration::from_millis(20));
        let id = SessionId::new();
        cache.remember_active_session(id);
        std::thread::sleep(Duration::from_millis(60));
        assert!(!cache.session_is_active(id));
    }

    #[test]
    fn a_zero_expiry_turns_it_off() {
        let cache = CredentialCache::new(Duration::ZERO);
        let u = user();
        let id = u.id;
        cache.remember_user(u);
        cache.remember_active_session(SessionId::new());
        cache.remember_verified_token("a.b.c", token_of(id, u64::MAX));
        assert_eq!(cache.user(id), None);
        assert_eq!(cache.verified_token("a.b.c", 0), None);
    }

    #[test]
    fn deleting_an_account_forgets_everything() {
        let cache = CredentialCache::new(Duration::from_secs(60));
        let u = user();
        let id = u.id;
        let digest = crate::secrets::digest("dsk_ab");
        cache.remember_user(u);
        cache.remember_api_key(
            digest.clone(),
            KeyOwner {
                user_id: id,
                scopes: KeyScopes::DEFAULT,
                expires_at: None,
            },
        );
        cache.remember_verified_token("a.b.c", token_of(id, u64::MAX));
        assert!(cache.user(id).is_some() && cache.api_key_owner(&digest).is_some());
        cache.forget_everything();
        assert!(cache.user(id).is_none() && cache.api_key_owner(&digest).is_none());
        assert_eq!(cache.verified_token("a.b.c", 0), None);
    }
}
