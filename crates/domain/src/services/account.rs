//! Account use cases: sign-in (a session with its first refresh token), refresh-token rotation
//! with re-use detection, sign-out, the session and API-key lists, and account deletion.
//! Secrets arrive here already hashed; the edge that received them does the hashing.

use time::{Duration, OffsetDateTime};

use crate::account::api_key::{ApiKeyName, KeyLifetime};
use crate::account::scope::KeyScopes;
use crate::account::{
    AccountData, ApiKey, LoginIdentity, RefreshToken, Session, TimeZone, TokenHash,
    UnknownTimeZone, User, UserStats,
};
use crate::clock::Clock;
use crate::error::RepoError;
use crate::ids::{ApiKeyId, RefreshTokenId, SessionId, UserId};
use crate::ports::{ApiKeyRepository, SessionRepository, UserRepository};

/// The device a session was opened from (shown in the session list).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Device {
    pub user_agent: Option<String>,
    pub ip: Option<String>,
}

/// Failure of [`AccountService::refresh`].
#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    #[error("unknown refresh token")]
    Unknown,
    #[error("the session is expired or revoked")]
    Expired,
    /// A rotated token came back: someone holds a copy. The whole session is revoked.
    #[error("a refresh token was used twice; the session is revoked")]
    Reused,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of the revocations.
#[derive(Debug, thiserror::Error)]
pub enum RevokeError {
    #[error("not found")]
    NotFound,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`AccountService::set_time_zone`].
#[derive(Debug, thiserror::Error)]
pub enum SetTimeZoneError {
    #[error(transparent)]
    Unknown(#[from] UnknownTimeZone),
    /// The account is gone.
    #[error("no such user")]
    NoUser,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// What the person asks for when making a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    pub name: ApiKeyName,
    pub scopes: KeyScopes,
    /// `None`: until revoked.
    pub lifetime: Option<KeyLifetime>,
}

/// The account use cases.
#[derive(Debug, Clone)]
pub struct AccountService<U, S, A, K> {
    users: U,
    sessions: S,
    keys: A,
    clock: K,
    refresh_ttl: Duration,
    /// How long after a rotation the old refresh token still refreshes (two tabs).
    reuse_grace: Duration,
    /// How long a session may go unused and still refresh.
    idle_timeout: Duration,
}

impl<U, S, A, K> AccountService<U, S, A, K>
where
    U: UserRepository,
    S: SessionRepository,
    A: ApiKeyRepository,
    K: Clock,
{
    /// The default grace window of a rotated refresh token.
    pub const REUSE_GRACE: Duration = Duration::seconds(30);
    /// The default idle timeout of a session.
    pub const IDLE_TIMEOUT: Duration = Duration::days(7);

    pub fn new(users: U, sessions: S, keys: A, clock: K, refresh_ttl: Duration) -> Self {
        Self {
            users,
            sessions,
            keys,
            clock,
            refresh_ttl,
            reuse_grace: Self::REUSE_GRACE,
            idle_timeout: Self::IDLE_TIMEOUT,
        }
    }

    /// With these refresh grace window and idle timeout instead of the defaults.
    #[must_use]
    pub fn with_session_limits(mut self, reuse_grace: Duration, idle_timeout: Duration) -> Self {
        self.reuse_grace = reuse_grace;
        self.idle_timeout = idle_timeout;
        self
    }

    /// Upserts the user and opens a session whose first refresh token has `refresh_hash`.
    /// A session lives at most the refresh lifetime from sign-in, however often it is refreshed.
    ///
    /// # Errors
    /// [`RepoError::Busy`]: nothing was written, and the same call shortly may succeed.
    /// [`RepoError::Unavailable`]: the database did not answer, so whether it committed is unknown;
    /// signing in again is safe (at worst an unused session stays until it expires).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: repeating will not help.
    pub async fn sign_in(
        &self,
        identity: &LoginIdentity,
        device: Device,
        refresh_hash: TokenHash,
    ) -> Result<(User, Session), RepoError> {
        let now = self.clock.now();
        let user = self.users.upsert_login(identity, now).await?;
        let session = Session {
            id: SessionId::new(),
            user_id: user.id,
            created_at: now,
            last_used_at: now,
            expires_at: now + self.refresh_ttl,
            user_agent: device.user_agent,
            ip: device.ip,
            revoked_at: None,
        };
        let token = RefreshToken {
            id: RefreshTokenId::new(),
            session_id: session.id,
            token_hash: refresh_hash,
            created_at: now,
            expires_at: session.expires_at,
            revoked_at: None,
        };
        self.sessions.create(&session, &token).await?;
        Ok((user, session))
    }

    /// Rotates a refresh token: the presented one is revoked and `next_hash` takes its place.
    /// Presenting a token that was already rotated revokes the whole session, unless it was
    /// rotated within the grace window (two tabs refreshing at once): then the session gets one
    /// more token. A session unused for the idle timeout can no longer refresh.
    ///
    /// # Errors
    /// See [`RefreshError`].
    pub async fn refresh(
        &self,
        presented: &TokenHash,
        next_hash: TokenHash,
    ) -> Result<(User, Session), RefreshError> {
        let now = self.clock.now();
        let (token, session) = self
            .sessions
            .find_refresh(presented)
            .await?
            .ok_or(RefreshError::Unknown)?;
        let idle = session.last_used_at + self.idle_timeout <= now;
        let next = RefreshToken {
            id: RefreshTokenId::new(),
            session_id: session.id,
            token_hash: next_hash,
            created_at: now,
            expires_at: session.expires_at,
            revoked_at: None,
        };
        if let Some(rotated_at) = token.revoked_at {
            if now - rotated_at <= self.reuse_grace && session.is_active(now) && !idle {
                return self.refresh_again(session, &next, now).await;
            }
            self.sessions
                .revoke(session.user_id, session.id, now)
                .await?;
            return Err(RefreshError::Reused);
        }
        if !session.is_active(now) || token.expires_at <= now || idle {
            return Err(RefreshError::Expired);
        }
        match self.sessions.rotate(token.id, &next, now).await {
            Ok(()) => {}
            // Two requests raced with the same token, and the other rotated it just now: within
            // the grace window, by definition.
            Err(RepoError::Conflict) => return self.refresh_again(session, &next, now).await,
            Err(e) => return Err(e.into()),
        }
        self.signed_in(session).await
    }

    /// The grace: one more token for a session whose token was rotated a moment ago.
    async fn refresh_again(
        &self,
        session: Session,
        next: &RefreshToken,
        now: OffsetDateTime,
    ) -> Result<(User, Session), RefreshError> {
        match self.sessions.add_refresh(next, now).await {
            Ok(()) => self.signed_in(session).await,
            Err(RepoError::NotFound) => Err(RefreshError::Expired),
            Err(e) => Err(e.into()),
        }
    }

    async fn signed_in(&self, session: Session) -> Result<(User, Session), RefreshError> {
        let user = self
            .users
            .get(session.user_id)
            .await?
            .ok_or(RefreshError::Unknown)?;
        Ok((user, session))
    }

    /// Creates or refreshes a user without opening a session (the synthetic operator user).
    ///
    /// # Errors
    /// [`RepoError::Busy`]: nothing was written, and the same call shortly may succeed.
    /// [`RepoError::Unavailable`]: the database did not answer, so whether it committed is unknown;
    /// calling again is safe (the person is found by their identity).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: repeating will not help.
    pub async fn ensure_user(&self, identity: &LoginIdentity) -> Result<User, RepoError> {
        self.users.upsert_login(identity, self.clock.now()).await
    }

    /// Signs out the session a refresh token belongs to (whatever the token's state).
    ///
    /// # Errors
    /// [`RepoError::Busy`]: nothing was written, and the same call shortly may succeed.
    /// [`RepoError::Unavailable`]: the database did not answer, so whether it committed is unknown;
    /// calling again is safe (revoking twice is revoking once).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: repeating will not help.
    pub async fn sign_out_by_refresh(&self, presented: &TokenHash) -> Result<(), RepoError> {
        if let Some((_, session)) = self.sessions.find_refresh(presented).await? {
            self.sessions
                .revoke(session.user_id, session.id, self.clock.now())
                .await?;
        }
        Ok(())
    }

    /// Whether the session behind an access token is still open (revocation takes effect at once).
    ///
    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn session_is_active(&self, id: SessionId) -> Result<bool, RepoError> {
        let now = self.clock.now();
        Ok(self
            .sessions
            .get(id)
            .await?
            .is_some_and(|s| s.is_active(now)))
    }

    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn user(&self, id: UserId) -> Result<Option<User>, RepoError> {
        self.users.get(id).await
    }

    /// The person's time zone (UTC until they set one).
    ///
    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn time_zone(&self, user: UserId) -> Result<TimeZone, RepoError> {
        Ok(self
            .users
            .time_zone(user)
            .await?
            .map_or_else(TimeZone::utc, |name| TimeZone::stored(&name)))
    }

    /// Sets the person's time zone by IANA name; returns it as stored.
    ///
    /// # Errors
    /// [`SetTimeZoneError::Unknown`] for a name the tz database does not know (nothing is
    /// stored); [`SetTimeZoneError::NoUser`]; storage failures.
    pub async fn set_time_zone(
        &self,
        user: UserId,
        name: &str,
    ) -> Result<TimeZone, SetTimeZoneError> {
        let zone = TimeZone::parse(name)?;
        if self.users.set_time_zone(user, &zone).await? {
            Ok(zone)
        } else {
            Err(SetTimeZoneError::NoUser)
        }
    }

    /// The user's open sessions, newest first.
    ///
    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn sessions(&self, user: UserId) -> Result<Vec<Session>, RepoError> {
        self.sessions.list_active(user, self.clock.now()).await
    }

    /// Revokes one of the user's sessions (sign-out uses it with the current session).
    ///
    /// # Errors
    /// [`RevokeError::NotFound`] when it is not the user's.
    pub async fn revoke_session(&self, user: UserId, id: SessionId) -> Result<(), RevokeError> {
        if self.sessions.revoke(user, id, self.clock.now()).await? {
            Ok(())
        } else {
            Err(RevokeError::NotFound)
        }
    }

    /// Stores a new key (its secret is shown once by the caller, never stored).
    ///
    /// # Errors
    /// [`RepoError::Busy`]: nothing was written, and the same call shortly may succeed.
    /// [`RepoError::Unavailable`]: the database did not answer, so whether it committed is unknown;
    /// list the keys before minting another, or revoke a key never shown.
    /// [`RepoError::Unexpected`] is a bug or corrupt data: repeating will not help.
    pub async fn create_api_key(
        &self,
        user: UserId,
        new: NewApiKey,
        prefix: String,
        key_hash: TokenHash,
    ) -> Result<ApiKey, RepoError> {
        let now = self.clock.now();
        let key = ApiKey {
            id: ApiKeyId::new(),
            user_id: user,
            name: new.name.into_string(),
            prefix,
            key_hash,
            scopes: new.scopes,
            expires_at: new.lifetime.map(|l| l.expiry(now)),
            created_at: now,
            last_used_at: None,
        };
        self.keys.create(&key).await?;
        Ok(key)
    }

    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn api_keys(&self, user: UserId) -> Result<Vec<ApiKey>, RepoError> {
        self.keys.list(user).await
    }

    /// # Errors
    /// [`RevokeError::NotFound`] when it is not the user's (or already revoked).
    pub async fn revoke_api_key(&self, user: UserId, id: ApiKeyId) -> Result<(), RevokeError> {
        if self.keys.revoke(user, id, self.clock.now()).await? {
            Ok(())
        } else {
            Err(RevokeError::NotFound)
        }
    }

    /// The key with this hash and its owner, recording its use; `None` for an unknown, revoked
    /// or expired key.
    ///
    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn authenticate_api_key(
        &self,
        hash: &TokenHash,
    ) -> Result<Option<(ApiKey, User)>, RepoError> {
        let now = self.clock.now();
        let Some(key) = self.keys.authenticate(hash, now).await? else {
            return Ok(None);
        };
        if !key.is_live(now) {
            return Ok(None);
        }
        Ok(self.users.get(key.user_id).await?.map(|user| (key, user)))
    }

    /// Every record of the user, for `GET /api/me/export`.
    ///
    /// # Errors
    /// [`RevokeError::NotFound`] when there is no such user.
    pub async fn export(&self, user: UserId) -> Result<AccountData, RevokeError> {
        self.users.export(user).await?.ok_or(RevokeError::NotFound)
    }

    /// Counts over the user's records; "recent" means the last 30 days.
    ///
    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn stats(&self, user: UserId) -> Result<UserStats, RepoError> {
        self.users
            .stats(user, self.clock.now() - Duration::days(30))
            .await
    }

    /// Deletes the account and everything it owns.
    ///
    /// # Errors
    /// [`RevokeError::NotFound`] when there is no such user.
    pub async fn delete_account(&self, user: UserId) -> Result<(), RevokeError> {
        if self.users.delete(user).await? {
            Ok(())
        } else {
            Err(RevokeError::NotFound)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::Email;
    use crate::clock::FixedClock;
    use crate::ports::{MockApiKeyRepository, MockSessionRepository, MockUserRepository};
    use crate::services::fixtures::{NOW, block_on, clock};

    type Service =
        AccountService<MockUserRepository, MockSessionRepository, MockApiKeyRepository, FixedClock>;

    const TTL: Duration = Duration::days(30);

    fn hash(c: char) -> TokenHash {
        TokenHash::from_hex(&c.to_string().repeat(64)).unwrap()
    }

    fn user() -> User {
        User {
            id: UserId::new(),
            email: Email::new("ada@example.org").unwrap(),
            issuer: "https://id.example.org".into(),
            name: None,
            created_at: NOW,
            last_login_at: Some(NOW),
        }
    }

    fn session(user: UserId) -> Session {
        Session {
            id: SessionId::new(),
            user_id: user,
            created_at: NOW,
            last_used_at: NOW,
            expires_at: NOW + TTL,
            user_agent: None,
            ip: None,
            revoked_at: None,
        }
    }

    fn token(session: &Session, revoked: bool) -> RefreshToken {
        RefreshToken {
            id: RefreshTokenId::new(),
            session_id: session.id,
            token_hash: hash('a'),
            created_at: NOW,
            expires_at: session.expires_at,
            revoked_at: revoked.then_some(NOW),
        }
    }

    fn service(users: MockUserRepository, sessions: MockSessionRepository) -> Service {
        AccountService::new(users, sessions, MockApiKeyRepository::new(), clock(), TTL)
    }

    #[test]
    fn an_unknown_time_zone_is_refused_without_touching_storage() {
        let mut users = MockUserRepository::new();
        users.expect_set_time_zone().never();
        let service = service(users, MockSessionRepository::new());
        for bad in ["Mars/Olympus_Mons", "", "UTC+1"] {
            assert!(matches!(
                block_on(service.set_time_zone(UserId::new(), bad)),
                Err(SetTimeZoneError::Unknown(_))
            ));
        }
    }

    #[test]
    fn a_known_time_zone_is_stored_by_its_database_name_and_read_back() {
        let mut users = MockUserRepository::new();
        users
            .expect_set_time_zone()
            .withf(|_, zone| zone.name() == "Europe/Berlin")
            .times(1)
            .returning(|_, _| Ok(true));
        users
            .expect_time_zone()
            .times(1)
            .returning(|_| Ok(Some("Europe/Berlin".to_owned())));
        let service = service(users, MockSessionRepository::new());
        let set = block_on(service.set_time_zone(UserId::new(), " Europe/Berlin ")).unwrap();
        assert_eq!(set.name(), "Europe/Berlin");
        let read = block_on(service.time_zone(UserId::new())).unwrap();
        assert_eq!(read.name(), "Europe/Berlin");
    }

    #[test]
    fn a_person_without_a_stored_zone_reads_as_utc_and_a_gone_account_is_told() {
        let mut users = MockUserRepository::new();
        users.expect_time_zone().returning(|_| Ok(None));
        users.expect_set_time_zone().returning(|_, _| Ok(false));
        let service = service(users, MockSessionRepository::new());
        assert_eq!(
            block_on(service.time_zone(UserId::new())).unwrap().name(),
            "UTC"
        );
        assert!(matches!(
            block_on(service.set_time_zone(UserId::new(), "Asia/Tokyo")),
            Err(SetTimeZoneError::NoUser)
        ));
    }

    #[test]
    fn signing_in_opens_a_session_bounded_by_the_refresh_lifetime() {
        let u = user();
        let mut users = MockUserRepository::new();
        let returned = u.clone();
        users
            .expect_upsert_login()
            .returning(move |_, _| Ok(returned.clone()));
        let mut sessions = MockSessionRepository::new();
        sessions
            .expect_create()
            .withf(|s, t| {
                s.expires_at == NOW + TTL
                    && t.session_id == s.id
                    && t.token_hash == hash('b')
                    && t.expires_at == s.expires_at
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let identity = LoginIdentity {
            issuer: "https://idp".into(),
            subject: "42".into(),
            email: u.email.clone(),
            name: None,
        };
        let device = Device {
            user_agent: Some("Firefox".into()),
            ip: Some("127.0.0.1".into()),
        };
        let (got, session) =
            block_on(service(users, sessions).sign_in(&identity, device, hash('b'))).unwrap();
        assert_eq!(got, u);
        assert_eq!(session.user_agent.as_deref(), Some("Firefox"));
    }

    #[test]
    fn a_refresh_rotates_the_token_within_the_session() {
        let u = user();
        let s = session(u.id);
        let t = token(&s, false);
        let old_id = t.id;
        let mut sessions = MockSessionRepository::new();
        sessions
            .expect_find_refresh()
            .returning(move |_| Ok(Some((t.clone(), s.clone()))));
        sessions
            .expect_rotate()
            .withf(move |old, next, now| {
                *old == old_id && next.token_hash == hash('c') && *now == NOW
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        sessions.expect_revoke().never();
        let mut users = MockUserRepository::new();
        let returned = u.clone();
        users
            .expect_get()
            .returning(move |_| Ok(Some(returned.clone())));
        let (got, _) = block_on(service(users, sessions).refresh(&hash('a'), hash('c'))).unwrap();
        assert_eq!(got.id, u.id);
    }

    #[test]
    fn a_rotated_token_presented_again_after_the_grace_window_revokes_the_whole_session() {
        let u = user();
        let s = session(u.id);
        let (sid, uid) = (s.id, u.id);
        let mut t = token(&s, true);
        t.revoked_at = Some(NOW - Duration::seconds(31));
        let mut sessions = MockSessionRepository::new();
        sessions
            .expect_find_refresh()
            .returning(move |_| Ok(Some((t.clone(), s.clone()))));
        sessions.expect_rotate().never();
        sessions.expect_add_refresh().never();
        sessions
            .expect_revoke()
            .withf(move |user, id, _| *user == uid && *id == sid)
            .times(1)
            .returning(|_, _, _| Ok(true));
        let err =
            block_on(service(MockUserRepository::new(), sessions).refresh(&hash('a'), hash('c')))
                .unwrap_err();
        assert!(matches!(err, RefreshError::Reused));
    }

    /// Two tabs: one refresh rotated the token a moment ago (or is rotating it right now), and
    /// the other presents the same token. Both keep the one session.
    #[test]
    fn a_token_rotated_within_the_grace_window_refreshes_again_into_the_same_session() {
        for racing in [false, true] {
            let u = user();
            let s = session(u.id);
            let sid = s.id;
            let mut t = token(&s, !racing);
            if !racing {
                t.revoked_at = Some(NOW - Duration::seconds(30));
            }
            let mut sessions = MockSessionRepository::new();
            sessions
                .expect_find_refresh()
                .returning(move |_| Ok(Some((t.clone(), s.clone()))));
            sessions
                .expect_rotate()
                .times(usize::from(racing))
                .returning(|_, _, _| Err(RepoError::Conflict));
            sessions
                .expect_add_refresh()
                .withf(move |next, _| next.session_id == sid && next.token_hash == hash('c'))
                .times(1)
                .returning(|_, _| Ok(()));
            sessions.expect_revoke().never();
            let mut users = MockUserRepository::new();
            let returned = u.clone();
            users
                .expect_get()
                .returning(move |_| Ok(Some(returned.clone())));
            let (_, session) =
                block_on(service(users, sessions).refresh(&hash('a'), hash('c'))).unwrap();
            assert_eq!(session.id, sid, "racing: {racing}");
        }
    }

    #[test]
    fn a_session_unused_for_the_idle_timeout_cannot_refresh() {
        let u = user();
        let mut s = session(u.id);
        s.last_used_at = NOW - Duration::days(7);
        let t = token(&s, false);
        let mut sessions = MockSessionRepository::new();
        sessions
            .expect_find_refresh()
            .returning(move |_| Ok(Some((t.clone(), s.clone()))));
        sessions.expect_rotate().never();
        let err =
            block_on(service(MockUserRepository::new(), sessions).refresh(&hash('a'), hash('c')))
                .unwrap_err();
        assert!(matches!(err, RefreshError::Expired));
    }

    #[test]
    fn expired_or_revoked_sessions_do_not_refresh() {
        let u = user();
        for (revoked, expired) in [(true, false), (false, true)] {
            let mut s = session(u.id);
            if revoked {
                s.revoked_at = Some(NOW);
            }
            if expired {
                s.expires_at = NOW;
            }
            let t = token(&s, false);
            let mut sessions = MockSessionRepository::new();
            sessions
                .expect_find_refresh()
                .returning(move |_| Ok(Some((t.clone(), s.clone()))));
            sessions.expect_rotate().never();
            let err = block_on(
                service(MockUserRepository::new(), sessions).refresh(&hash('a'), hash('c')),
            )
            .unwrap_err();
            assert!(
                matches!(err, RefreshError::Expired),
                "revoked {revoked}, expired {expired}"
            );
        }
    }

    #[test]
    fn an_unknown_refresh_token_is_refused() {
        let mut sessions = MockSessionRepository::new();
        sessions.expect_find_refresh().returning(|_| Ok(None));
        let err =
            block_on(service(MockUserRepository::new(), sessions).refresh(&hash('a'), hash('c')))
                .unwrap_err();
        assert!(matches!(err, RefreshError::Unknown));
    }

    #[test]
    fn revoking_someone_elses_session_or_key_is_not_found() {
        let mut sessions = MockSessionRepository::new();
        sessions.expect_revoke().returning(|_, _, _| Ok(false));
        let mut keys = MockApiKeyRepository::new();
        keys.expect_revoke().returning(|_, _, _| Ok(false));
        let service = AccountService::new(MockUserRepository::new(), sessions, keys, clock(), TTL);
        assert!(matches!(
            block_on(service.revoke_session(UserId::new(), SessionId::new())),
            Err(RevokeError::NotFound)
        ));
        assert!(matches!(
            block_on(service.revoke_api_key(UserId::new(), ApiKeyId::new())),
            Err(RevokeError::NotFound)
        ));
    }

    #[test]
    fn a_revoked_session_is_no_longer_active() {
        let u = user();
        let mut s = session(u.id);
        s.revoked_at = Some(NOW);
        let mut sessions = MockSessionRepository::new();
        sessions
            .expect_get()
            .returning(move |_| Ok(Some(s.clone())));
        assert!(
            !block_on(
                service(MockUserRepository::new(), sessions).session_is_active(SessionId::new())
            )
            .unwrap()
        );
    }
}
