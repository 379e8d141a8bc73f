//! Failures sorted by meaning: an exhausted pool is Unavailable, a vanished owner is NotFound,
//! and a stored value the domain refuses is Unexpected without echoing the value.

use std::time::Duration;

use adapters_diesel::{Database, DbConfig, DieselTaskMappingRepository, DieselUserRepository};
use domain::RepoError;
use domain::foundation::Foundation;
use domain::ids::UserId;
use domain::integration::TaskMappingQuery;
use domain::ports::{TaskMappingRepository, UserRepository};

use crate::harness::{T0, execute, user};
use crate::task_mappings::input;

dual_test!(
    an_exhausted_pool_reports_the_database_unavailable,
    |db, url| {
        let _ = db;
        let small = tokio::task::spawn_blocking(move || {
            let mut config = DbConfig::new(url);
            config.max_connections = 1;
            config.connect_timeout = Duration::from_millis(300);
            Database::connect(&config)
        })
        .await
        .unwrap()
        .unwrap();
        let held = {
            let small = small.clone();
            tokio::task::spawn_blocking(move || small.connection().unwrap())
                .await
                .unwrap()
        };
        let result = DieselUserRepository::new(small.clone())
            .get(UserId::new())
            .await;
        assert!(
            matches!(result, Err(RepoError::Unavailable(_))),
            "{result:?}"
        );
        drop(held);
        assert!(
            DieselUserRepository::new(small)
                .get(UserId::new())
                .await
                .is_ok()
        );
    }
);

dual_test!(writing_for_a_person_who_does_not_exist_is_not_found, |db| {
    let repo = DieselTaskMappingRepository::new(db.clone());
    let result = repo
        .upsert(UserId::new(), &input("x", Foundation::Love, 1, T0), T0)
        .await;
    assert!(matches!(result, Err(RepoError::NotFound)), "{result:?}");
});

dual_test!(
    a_stored_value_the_domain_refuses_is_unexpected_and_not_echoed,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let id = ada.id;
        execute(
        &db,
        format!(
            "INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, \
             minutes, occurred_at, created_at, updated_at) VALUES ('secret-not-a-uuid', '{id}', 'x', NULL, \
             'love', 'client', 5, \
             '2026-11-22 10:00:00', '2026-11-22 10:00:00', '2026-11-22 10:00:00')"
        ),
    )
    .await;
        let repo = DieselTaskMappingRepository::new(db.clone());
        let err = repo
            .list(ada.id, &TaskMappingQuery::default())
            .await
            .unwrap_err();
        let RepoError::Unexpected(cause) = err else {
            panic!("expected Unexpected, got {err:?}");
        };
        let chain = format!("{cause:#}");
        assert!(
            chain.contains("listing task mappings") && chain.contains("task_mapping.id"),
            "{chain}"
        );
        assert!(!chain.contains("secret"), "{chain}");
        assert!(
            DieselUserRepository::new(db.clone())
                .get(ada.id)
                .await
                .unwrap()
                .is_some()
        );
    }
);
