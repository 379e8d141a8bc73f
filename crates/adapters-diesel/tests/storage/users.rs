//! Users: sign-in upsert, look-ups and deletion.

use adapters_diesel::DieselUserRepository;
use domain::account::Email;
use domain::ids::UserId;
use domain::ports::UserRepository;
use time::Duration;

use crate::harness::{T0, TRICKY};

dual_test!(
    a_first_sign_in_creates_the_user_and_a_later_one_refreshes_it,
    |db| {
        let repo = DieselUserRepository::new(db.clone());
        let email = Email::new("ada@example.org").unwrap();
        let first = repo
            .upsert_on_login(&email, Some(TRICKY.into()), T0)
            .await
            .unwrap();
        assert_eq!(first.email, email);
        assert_eq!(first.name.as_deref(), Some(TRICKY));
        assert_eq!(first.created_at, T0);
        assert_eq!(first.last_login_at, Some(T0));

        let later = T0 + Duration::days(3);
        let second = repo
            .upsert_on_login(&email, Some("Ada L.".into()), later)
            .await
            .unwrap();
        assert_eq!(second.id, first.id);
        assert_eq!(second.created_at, T0, "created_at is kept");
        assert_eq!(second.last_login_at, Some(later));
        assert_eq!(second.name.as_deref(), Some("Ada L."));

        let third = repo
            .upsert_on_login(&email, None, later + Duration::hours(1))
            .await
            .unwrap();
        assert_eq!(
            third.name.as_deref(),
            Some("Ada L."),
            "a missing name keeps the stored one"
        );
    }
);

dual_test!(
    users_are_found_by_id_and_email_and_unknown_ones_are_absent,
    |db| {
        let repo = DieselUserRepository::new(db.clone());
        let ada = repo
            .upsert_on_login(&Email::new("ada@example.org").unwrap(), None, T0)
            .await
            .unwrap();
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
    let ada = repo
        .upsert_on_login(&Email::new("ada@example.org").unwrap(), None, T0)
        .await
        .unwrap();
    assert!(repo.delete(ada.id).await.unwrap());
    assert!(!repo.delete(ada.id).await.unwrap());
    assert_eq!(repo.get(ada.id).await.unwrap(), None);
});
