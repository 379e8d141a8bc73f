//! Sessions and refresh tokens: round trip, rotation, re-use, revocation by the owner only.

use adapters_diesel::DieselSessionRepository;
use domain::RepoError;
use domain::account::{RefreshToken, Session, TokenHash};
use domain::ids::{RefreshTokenId, SessionId, UserId};
use domain::ports::SessionRepository;
use time::{Duration, OffsetDateTime};

use crate::harness::{T0, TRICKY, user};

fn hash(n: u8) -> TokenHash {
    TokenHash::from_hex(&format!("{n:02x}").repeat(32)).unwrap()
}

fn session(user: UserId, created_at: OffsetDateTime) -> Session {
    Session {
        id: SessionId::new(),
        user_id: user,
        created_at,
        last_used_at: created_at,
        expires_at: created_at + Duration::days(30),
        user_agent: Some(TRICKY.into()),
        ip: Some("2001:db8::1".into()),
        revoked_at: None,
    }
}

fn token(session: &Session, n: u8, at: OffsetDateTime) -> RefreshToken {
    RefreshToken {
        id: RefreshTokenId::new(),
        session_id: session.id,
        token_hash: hash(n),
        created_at: at,
        expires_at: at + Duration::days(30),
        revoked_at: None,
    }
}

dual_test!(a_session_and_its_token_round_trip, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselSessionRepository::new(db.clone());
    let s = session(ada.id, T0);
    let t = token(&s, 1, T0);
    repo.create(&s, &t).await.unwrap();
    assert_eq!(repo.get(s.id).await.unwrap(), Some(s.clone()));
    assert_eq!(repo.find_refresh(&hash(1)).await.unwrap(), Some((t, s)));
    assert_eq!(repo.find_refresh(&hash(2)).await.unwrap(), None);
    assert_eq!(repo.get(SessionId::new()).await.unwrap(), None);
});

dual_test!(
    rotation_revokes_the_old_token_and_a_second_rotation_conflicts,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselSessionRepository::new(db.clone());
        let s = session(ada.id, T0);
        let first = token(&s, 1, T0);
        repo.create(&s, &first).await.unwrap();

        let later = T0 + Duration::minutes(20);
        let second = token(&s, 2, later);
        repo.rotate(first.id, &second, later).await.unwrap();

        let (old, _) = repo.find_refresh(&hash(1)).await.unwrap().unwrap();
        assert_eq!(old.revoked_at, Some(later));
        let (new, session_now) = repo.find_refresh(&hash(2)).await.unwrap().unwrap();
        assert_eq!(new, second);
        assert_eq!(
            session_now.last_used_at, later,
            "the session is marked used"
        );

        let third = token(&s, 3, later);
        assert!(matches!(
            repo.rotate(first.id, &third, later).await,
            Err(RepoError::Conflict)
        ));
        assert_eq!(
            repo.find_refresh(&hash(3)).await.unwrap(),
            None,
            "nothing of the refused rotation is stored"
        );
        assert!(matches!(
            repo.rotate(RefreshTokenId::new(), &token(&s, 4, later), later)
                .await,
            Err(RepoError::NotFound)
        ));
    }
);

dual_test!(
    concurrent_rotations_of_one_token_let_exactly_one_win,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselSessionRepository::new(db.clone());
        let s = session(ada.id, T0);
        let first = token(&s, 1, T0);
        repo.create(&s, &first).await.unwrap();
        let mut tasks = tokio::task::JoinSet::new();
        for n in 10..18 {
            let (repo, next) = (repo.clone(), token(&s, n, T0));
            tasks.spawn(async move { repo.rotate(first.id, &next, T0).await });
        }
        let results = tasks.join_all().await;
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1);
        assert!(
            results
                .iter()
                .all(|r| r.is_ok() || matches!(r, Err(RepoError::Conflict)))
        );
    }
);

dual_test!(
    only_the_owner_revokes_a_session_and_its_tokens_go_with_it,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let repo = DieselSessionRepository::new(db.clone());
        let s = session(ada.id, T0);
        repo.create(&s, &token(&s, 1, T0)).await.unwrap();
        let later = T0 + Duration::hours(1);

        assert!(
            !repo.revoke(bob.id, s.id, later).await.unwrap(),
            "not Bob's"
        );
        assert_eq!(repo.get(s.id).await.unwrap().unwrap().revoked_at, None);
        assert!(
            !repo.revoke(ada.id, SessionId::new(), later).await.unwrap(),
            "unknown"
        );

        assert!(repo.revoke(ada.id, s.id, later).await.unwrap());
        assert_eq!(
            repo.get(s.id).await.unwrap().unwrap().revoked_at,
            Some(later)
        );
        let (t, _) = repo.find_refresh(&hash(1)).await.unwrap().unwrap();
        assert_eq!(t.revoked_at, Some(later));
        assert!(
            repo.revoke(ada.id, s.id, later + Duration::hours(1))
                .await
                .unwrap(),
            "idempotent for the owner"
        );
        assert_eq!(
            repo.get(s.id).await.unwrap().unwrap().revoked_at,
            Some(later),
            "first revocation time kept"
        );
    }
);

dual_test!(
    active_sessions_exclude_revoked_and_expired_ones_newest_first,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let repo = DieselSessionRepository::new(db.clone());
        let older = session(ada.id, T0);
        let newer = session(ada.id, T0 + Duration::hours(1));
        let revoked = session(ada.id, T0 + Duration::hours(2));
        let mut expired = session(ada.id, T0 - Duration::days(40));
        expired.expires_at = T0 - Duration::days(10);
        let bobs = session(bob.id, T0);
        for (n, s) in [&older, &newer, &revoked, &expired, &bobs]
            .into_iter()
            .enumerate()
        {
            repo.create(s, &token(s, u8::try_from(n).unwrap() + 1, s.created_at))
                .await
                .unwrap();
        }
        let now = T0 + Duration::hours(3);
        repo.revoke(ada.id, revoked.id, now).await.unwrap();
        let ids: Vec<_> = repo
            .list_active(ada.id, now)
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(ids, [newer.id, older.id]);
    }
);

dual_test!(
    the_grace_adds_a_token_to_an_active_session_and_none_to_a_revoked_one,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselSessionRepository::new(db.clone());
        let s = session(ada.id, T0);
        let first = token(&s, 1, T0);
        repo.create(&s, &first).await.unwrap();
        let later = T0 + Duration::minutes(20);
        repo.rotate(first.id, &token(&s, 2, later), later)
            .await
            .unwrap();

        // The second tab, a moment later: one more token of the same session.
        let again = T0 + Duration::minutes(21);
        repo.add_refresh(&token(&s, 3, again), again).await.unwrap();
        let (added, session_now) = repo.find_refresh(&hash(3)).await.unwrap().unwrap();
        assert_eq!((added.session_id, added.revoked_at), (s.id, None));
        assert_eq!(session_now.last_used_at, again);
        assert!(
            repo.find_refresh(&hash(2))
                .await
                .unwrap()
                .unwrap()
                .0
                .revoked_at
                .is_none(),
            "the first tab's token still works"
        );

        assert!(repo.revoke(ada.id, s.id, again).await.unwrap());
        assert!(matches!(
            repo.add_refresh(&token(&s, 4, again), again).await,
            Err(RepoError::NotFound)
        ));
        assert_eq!(repo.find_refresh(&hash(4)).await.unwrap(), None);
    }
);
