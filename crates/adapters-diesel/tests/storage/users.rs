//! Users: the sign-in upsert keyed by (issuer, subject), look-ups and deletion.

use adapters_diesel::DieselUserRepository;
use domain::account::{Email, LoginIdentity};
use domain::ids::UserId;
use domain::ports::UserRepository;
use time::Duration;

use crate::harness::{ISSUER, T0, TRICKY, count, execute, identity};

dual_test!(
    a_first_sign_in_creates_the_user_and_later_ones_refresh_it_by_issuer_and_subject,
    |db| {
        let repo = DieselUserRepository::new(db.clone());
        let ada = identity("ada@example.org", Some(TRICKY));
        let first = repo.upsert_login(&ada, T0).await.unwrap();
        assert_eq!(first.email, ada.email);
        assert_eq!(first.name.as_deref(), Some(TRICKY));
        assert_eq!(first.created_at, T0);
        assert_eq!(first.last_login_at, Some(T0));

        // Same issuer and subject, new address and name: the same person, refreshed.
        let later = T0 + Duration::days(3);
        let moved = LoginIdentity {
            email: Email::new("ada@lovelace.example").unwrap(),
            name: Some("Ada L.".into()),
            ..ada.clone()
        };
        let second = repo.upsert_login(&moved, later).await.unwrap();
        assert_eq!(second.id, first.id);
        assert_eq!(second.created_at, T0, "created_at is kept");
        assert_eq!(second.last_login_at, Some(later));
        assert_eq!(second.email, moved.email, "the e-mail follows the provider");
        assert_eq!(second.name.as_deref(), Some("Ada L."));
        assert_eq!(repo.get(first.id).await.unwrap(), Some(second.clone()));
        assert_eq!(
            repo.find_by_email(&ada.email).await.unwrap(),
            None,
            "the old address no longer names anyone"
        );

        let nameless = LoginIdentity {
            name: None,
            ..moved.clone()
        };
        let third = repo
            .upsert_login(&nameless, later + Duration::hours(1))
            .await
            .unwrap();
        assert_eq!(
            third.name.as_deref(),
            Some("Ada L."),
            "a missing name keeps the stored one"
        );
        assert_eq!(third.last_login_at, Some(later + Duration::hours(1)));
        assert_eq!(count(&db, "users").await, 1);
    }
);

dual_test!(
    the_same_email_from_two_issuers_or_subjects_is_two_people,
    |db| {
        let repo = DieselUserRepository::new(db.clone());
        let at_work = identity("ada@example.org", Some("Ada"));
        let elsewhere = LoginIdentity {
            issuer: "https://accounts.other.example".into(),
            ..at_work.clone()
        };
        let second_account = LoginIdentity {
            subject: "another-subject".into(),
            ..at_work.clone()
        };
        let a = repo.upsert_login(&at_work, T0).await.unwrap();
        let b = repo
            .upsert_login(&elsewhere, T0 + Duration::seconds(1))
            .await
            .unwrap();
        let c = repo
            .upsert_login(&second_account, T0 + Duration::seconds(2))
            .await
            .unwrap();
        assert_ne!(a.id, b.id);
        assert_ne!(a.id, c.id);
        assert_ne!(b.id, c.id);
        assert_eq!(count(&db, "users WHERE email = 'ada@example.org'").await, 3);
        // Each sign-in again finds its own person.
        let again = repo
            .upsert_login(&elsewhere, T0 + Duration::days(1))
            .await
            .unwrap();
        assert_eq!(again.id, b.id);
        assert_eq!(count(&db, "users").await, 3);
        assert_eq!(
            repo.find_by_email(&at_work.email)
                .await
                .unwrap()
                .map(|u| u.id),
            Some(a.id),
            "a shared address finds the person who signed up first"
        );
        assert_eq!(
            count(
                &db,
                &format!(
                    "users WHERE oidc_issuer = '{ISSUER}' AND oidc_subject = 'another-subject'"
                )
            )
            .await,
            1
        );
    }
);

dual_test!(
    users_are_found_by_id_and_email_and_unknown_ones_are_absent,
    |db| {
        let repo = DieselUserRepository::new(db.clone());
        let ada = repo
            .upsert_login(&identity("ada@example.org", None), T0)
            .await
            .unwrap();
        assert_eq!(ada.name, None);
        assert_eq!(repo.get(ada.id).await.unwrap(), Some(ada.clone()));
        assert_eq!(
            repo.find_by_email(&ada.email).await.unwrap(),
            Some(ada.clone())
        );
        assert_eq!(repo.get(UserId::new()).await.unwrap(), None);
        assert_eq!(
            repo.find_by_email(&Email::new("bob@example.org").unwrap())
                .await
                .unwrap(),
            None
        );
    }
);

dual_test!(deleting_a_user_reports_whether_there_was_one, |db| {
    let repo = DieselUserRepository::new(db.clone());
    let login = identity("ada@example.org", None);
    let ada = repo.upsert_login(&login, T0).await.unwrap();
    assert!(repo.delete(ada.id).await.unwrap());
    assert!(!repo.delete(ada.id).await.unwrap());
    assert_eq!(repo.get(ada.id).await.unwrap(), None);
    // Signing in again afterwards starts a new account.
    let again = repo
        .upsert_login(&login, T0 + Duration::days(1))
        .await
        .unwrap();
    assert_ne!(again.id, ada.id);
    assert_eq!(again.created_at, T0 + Duration::days(1));
});

dual_test!(
    an_address_stored_before_mailbox_syntax_was_refused_is_still_read,
    |db| {
        let repo = DieselUserRepository::new(db.clone());
        let ada = crate::harness::user(&db, "ada@example.org").await;
        // What an earlier version accepted: the account must stay readable (not a 500 on every
        // request), and only a bare-address mailer ever sees the value.
        execute(
            &db,
            format!(
                "UPDATE users SET email = 'x<victim@evil.example>' WHERE id = '{}'",
                ada.id
            ),
        )
        .await;
        let read = repo.get(ada.id).await.unwrap().unwrap();
        assert_eq!(read.email.as_str(), "x<victim@evil.example>");
    }
);
