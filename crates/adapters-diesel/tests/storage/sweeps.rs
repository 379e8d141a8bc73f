//! Sweeps: one person's entries under an exact id prefix, in `[from, to)`, not sent since a
//! moment, deleted together; everything else (another prefix, case, range, a newer send,
//! another person) stays.

use adapters_diesel::DieselTaskMappingRepository;
use domain::foundation::Foundation;
use domain::integration::{Sweep, SweepPrefix};
use domain::ports::TaskMappingRepository;
use time::Duration;

use crate::harness::{T0, user};
use crate::task_mappings::input;

fn sweep(
    prefix: &str,
    from: time::OffsetDateTime,
    to: time::OffsetDateTime,
    since: time::OffsetDateTime,
) -> Sweep {
    Sweep::new(SweepPrefix::new(prefix).unwrap(), from, to, since, since).unwrap()
}

dual_test!(
    a_sweep_deletes_exactly_the_old_entries_of_its_prefix_and_range,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let repo = DieselTaskMappingRepository::new(db.clone());
        let (day, hour) = (Duration::DAY, Duration::HOUR);
        let (from, to) = (T0 - day, T0 + day);
        let sent_before = T0 - hour;
        let run_start = T0;
        let sent_now = T0 + Duration::minutes(5);
        for (id, at, sent) in [
            ("toggl:stale", T0, sent_before),
            ("toggl:stale:d1", from, sent_before),
            ("toggl:resent", T0, sent_now),
            (
                "toggl:before-range",
                from - Duration::MICROSECOND,
                sent_before,
            ),
            ("toggl:at-to", to, sent_before),
            ("TOGGL:case", T0, sent_before),
            ("clockify:other", T0, sent_before),
            ("togglx", T0, sent_before),
            ("toggl%:wild", T0, sent_before),
        ] {
            repo.upsert(ada.id, &input(id, Foundation::Love, 10, at), sent)
                .await
                .unwrap();
        }
        repo.upsert(
            bob.id,
            &input("toggl:stale", Foundation::Love, 10, T0),
            sent_before,
        )
        .await
        .unwrap();

        let swept = repo
            .sweep(ada.id, &sweep("toggl:", from, to, run_start))
            .await
            .unwrap();
        assert_eq!(swept, 2);
        let left = |who| {
            let repo = DieselTaskMappingRepository::new(db.clone());
            async move {
                let query = domain::integration::TaskMappingQuery {
                    from: None,
                    to: None,
                    foundation: None,
                    limit: domain::pagination::PageLimit::default(),
                    before: None,
                };
                let mut ids: Vec<String> = repo
                    .list(who, &query)
                    .await
                    .unwrap()
                    .items
                    .into_iter()
                    .map(|m| m.external_task_id)
                    .collect();
                ids.sort();
                ids
            }
        };
        assert_eq!(
            left(ada.id).await,
            [
                "TOGGL:case",
                "clockify:other",
                "toggl%:wild",
                "toggl:at-to",
                "toggl:before-range",
                "toggl:resent",
                "togglx",
            ]
        );
        assert_eq!(left(bob.id).await, ["toggl:stale"]);

        // A prefix with LIKE's wildcards in it is read literally.
        let literal = repo
            .sweep(ada.id, &sweep("toggl%", from, to, run_start))
            .await
            .unwrap();
        assert_eq!(literal, 1);
        // Nothing left to take: a repeat deletes nothing.
        let again = repo
            .sweep(ada.id, &sweep("toggl:", from, to, run_start))
            .await
            .unwrap();
        assert_eq!(again, 0);
    }
);
