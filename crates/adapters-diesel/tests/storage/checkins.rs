//! Check-ins: round trip, newest-first pages, one response only, and no duplicate when many
//! workers (and a second pool, standing in for another host) insert at once.

use adapters_diesel::{Database, DieselCheckInRepository};
use domain::RepoError;
use domain::coaching::{CheckIn, CheckInOrigin};
use domain::ids::{CheckInId, UserId};
use domain::pagination::PageLimit;
use domain::ports::CheckInRepository;
use domain::text::Note;
use time::{Duration, OffsetDateTime};

use crate::harness::{T0, TRICKY, count, user};

pub fn checkin(user: UserId, at: OffsetDateTime) -> CheckIn {
    CheckIn {
        id: CheckInId::new(),
        user_id: user,
        message: format!(
            "Time for your check-in. “{TRICKY}”\n\nDoes this direction still hold for you?"
        ),
        quoted_goals: vec![TRICKY.into(), "Open a music school".into()],
        observation: Some("Most of your logged time went to Vocation.".into()),
        origin: CheckInOrigin::Batch,
        created_at: at,
        response: None,
    }
}

dual_test!(check_ins_round_trip_and_page_newest_first, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    let repo = DieselCheckInRepository::new(db.clone());
    let mut all = Vec::new();
    for n in 0..7 {
        // Pairs share an instant, so the id breaks ties across page boundaries.
        let c = checkin(ada.id, T0 + Duration::days(n / 2));
        repo.insert(&c).await.unwrap();
        all.push(c);
    }
    repo.insert(&checkin(bob.id, T0)).await.unwrap();
    all.sort_by_key(|c| std::cmp::Reverse((c.created_at, c.id)));

    let limit = PageLimit::new(3).unwrap();
    let mut seen = Vec::new();
    let mut before = None;
    loop {
        let page = repo.list(ada.id, limit, before).await.unwrap();
        seen.extend(page.items);
        match page.next_cursor {
            Some(c) => before = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, all);
    assert_eq!(
        repo.get(ada.id, all[0].id).await.unwrap(),
        Some(all[0].clone())
    );
    assert_eq!(
        repo.get(bob.id, all[0].id).await.unwrap(),
        None,
        "owner scoped"
    );
    assert_eq!(
        repo.latest_created_at(ada.id).await.unwrap(),
        Some(all[0].created_at)
    );
    assert_eq!(repo.latest_created_at(UserId::new()).await.unwrap(), None);
});

dual_test!(a_check_in_takes_one_response_only, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    let repo = DieselCheckInRepository::new(db.clone());
    let mut c = checkin(ada.id, T0);
    repo.insert(&c).await.unwrap();
    c.respond(
        false,
        Some(Note::new(TRICKY).unwrap()),
        T0 + Duration::hours(2),
    )
    .unwrap();
    repo.save_response(&c).await.unwrap();
    assert_eq!(repo.get(ada.id, c.id).await.unwrap(), Some(c.clone()));

    let mut again = c.clone();
    again.response.as_mut().unwrap().still_valid = true;
    assert!(matches!(
        repo.save_response(&again).await,
        Err(RepoError::Conflict)
    ));
    assert_eq!(
        repo.get(ada.id, c.id).await.unwrap(),
        Some(c.clone()),
        "the first response stays"
    );

    let mut foreign = c.clone();
    foreign.user_id = bob.id;
    assert!(matches!(
        repo.save_response(&foreign).await,
        Err(RepoError::NotFound)
    ));
});

dual_test!(
    insert_unless_recent_skips_when_a_recent_check_in_exists,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselCheckInRepository::new(db.clone());
        let week = Duration::days(7);
        assert!(
            repo.insert_unless_recent(&checkin(ada.id, T0), T0 - week)
                .await
                .unwrap()
        );
        let next = T0 + Duration::days(3);
        assert!(
            !repo
                .insert_unless_recent(&checkin(ada.id, next), next - week)
                .await
                .unwrap()
        );
        let due = T0 + week + Duration::seconds(1);
        assert!(
            repo.insert_unless_recent(&checkin(ada.id, due), due - week)
                .await
                .unwrap()
        );
        assert_eq!(count(&db, "coaching_checkin").await, 2);
    }
);

dual_test!(
    concurrent_insert_unless_recent_creates_exactly_one_check_in,
    |db, url| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        // A second, independent pool on the same database plays the second batch host.
        let other =
            tokio::task::spawn_blocking(move || Database::connect(&crate::harness::config(&url)))
                .await
                .unwrap()
                .unwrap();
        let repos = [
            DieselCheckInRepository::new(db.clone()),
            DieselCheckInRepository::new(other),
        ];
        let mut tasks = tokio::task::JoinSet::new();
        for n in 0..24 {
            let repo = repos[n % 2].clone();
            let who = if n % 3 == 0 { bob.id } else { ada.id };
            tasks.spawn(async move {
                repo.insert_unless_recent(&checkin(who, T0), T0 - Duration::days(7))
                    .await
            });
        }
        let inserted = tasks
            .join_all()
            .await
            .into_iter()
            .map(Result::unwrap)
            .filter(|i| *i)
            .count();
        assert_eq!(inserted, 2, "one per person");
        let (a, b) = (ada.id, bob.id);
        assert_eq!(
            count(&db, &format!("coaching_checkin WHERE user_id = '{a}'")).await,
            1
        );
        assert_eq!(
            count(&db, &format!("coaching_checkin WHERE user_id = '{b}'")).await,
            1
        );
    }
);
