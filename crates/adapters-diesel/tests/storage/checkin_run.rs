//! The storage side of the scheduled check-in run: candidate pages (profile, preferences, latest
//! check-in), the per-person rollup of many people in one aggregate, and the guarded batch
//! insert, also when two hosts run it at once over overlapping pages.

use adapters_diesel::{
    Database, DieselCheckInRepository, DieselPreferencesRepository, DieselProfileRepository,
    DieselTaskMappingRepository, DieselUserRepository,
};
use domain::account::TimeZone;
use domain::coaching::{CoachingPreferences, PreferenceSource, derive_preferences};
use domain::foundation::Foundation;
use domain::ids::UserId;
use domain::integration::Window;
use domain::pagination::PageLimit;
use domain::ports::{
    CheckInCandidate, CheckInRepository, GuardedCheckIn, PreferencesRepository, ProfileRepository,
    ProfileWrite, TaskMappingRepository, UserRepository,
};
use domain::profile::{Profile, ProfileEvent, Triad};
use time::{Duration, OffsetDateTime};

use crate::checkins::checkin;
use crate::harness::{T0, count, user};
use crate::profiles::first_write;
use crate::task_mappings::input;

/// A person with a profile, affirmed when `locked`; returns the stored profile.
async fn person(db: &Database, email: &str, locked: bool) -> Profile {
    let u = user(db, email).await;
    let repo = DieselProfileRepository::new(db.clone());
    let w = first_write(u.id, T0);
    repo.write(w.clone()).await.unwrap();
    if !locked {
        return w.profile;
    }
    let t = w
        .profile
        .clone()
        .apply(ProfileEvent::Affirm, T0 + Duration::hours(1))
        .unwrap();
    repo.write(ProfileWrite {
        profile: t.profile.clone(),
        expected_version: Some(w.profile.version),
        revision: t.revision,
        reflection: vec![],
        completes: None,
        events: vec![],
    })
    .await
    .unwrap();
    t.profile
}

fn guarded(user: UserId, at: OffsetDateTime, cadence_days: i64) -> GuardedCheckIn {
    GuardedCheckIn {
        checkin: checkin(user, at),
        since: at - Duration::days(cadence_days),
    }
}

async fn checkins_of(db: &Database, user: UserId) -> i64 {
    count(db, &format!("coaching_checkin WHERE user_id = '{user}'")).await
}

dual_test!(
    candidates_page_affirmed_profiles_with_preferences_and_latest_check_in,
    |db| {
        let checkins = DieselCheckInRepository::new(db.clone());
        let preferences = DieselPreferencesRepository::new(db.clone());
        let mut locked = Vec::new();
        for n in 0..5 {
            let p = person(&db, &format!("p{n}@example.org"), n != 2).await;
            if n != 2 {
                locked.push(p);
            }
        }
        locked.sort_by_key(|p| p.user_id);
        // The first has stored preferences and two check-ins, the second one check-in, the
        // others neither. The unlocked person's check-in must not leak into anyone's row.
        let stored = CoachingPreferences {
            user_id: locked[0].user_id,
            settings: derive_preferences(Triad::Head),
            source: PreferenceSource::Override,
            updated_at: T0,
        };
        preferences.put(&stored).await.unwrap();
        // The second lives in Tokyo: the run observes their days there.
        let tokyo = TimeZone::parse("Asia/Tokyo").unwrap();
        DieselUserRepository::new(db.clone())
            .set_time_zone(locked[1].user_id, &tokyo)
            .await
            .unwrap();
        for (who, at) in [
            (locked[0].user_id, T0 - Duration::days(20)),
            (locked[0].user_id, T0 - Duration::days(3)),
            (locked[1].user_id, T0 - Duration::days(9)),
        ] {
            checkins.insert(&checkin(who, at)).await.unwrap();
        }

        let limit = PageLimit::new(2).unwrap();
        let mut pages = Vec::new();
        let mut after = None;
        loop {
            let page = checkins.candidates(after, limit).await.unwrap();
            assert!(page.len() <= 2);
            let Some(last) = page.last() else { break };
            after = Some(last.profile.user_id);
            pages.push(page);
        }
        assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2]);
        let all: Vec<CheckInCandidate> = pages.concat();
        let expected: Vec<CheckInCandidate> = locked
            .iter()
            .enumerate()
            .map(|(n, p)| CheckInCandidate {
                profile: p.clone(),
                preferences: (n == 0).then_some(stored),
                last_checkin_at: match n {
                    0 => Some(T0 - Duration::days(3)),
                    1 => Some(T0 - Duration::days(9)),
                    _ => None,
                },
                time_zone: if n == 1 {
                    tokyo.clone()
                } else {
                    TimeZone::utc()
                },
            })
            .collect();
        assert_eq!(all, expected);
        assert!(all.iter().all(|c| c.profile.locked));
    }
);

dual_test!(
    a_reopened_profile_is_no_candidate_until_it_is_affirmed_again,
    |db| {
        let checkins = DieselCheckInRepository::new(db.clone());
        let profiles = DieselProfileRepository::new(db.clone());
        let affirmed = person(&db, "ada@example.org", true).await;
        let limit = PageLimit::new(10).unwrap();
        assert_eq!(checkins.candidates(None, limit).await.unwrap().len(), 1);

        let reopened = affirmed
            .clone()
            .apply(ProfileEvent::Reopen, T0 + Duration::hours(2))
            .unwrap();
        profiles
            .write(ProfileWrite {
                profile: reopened.profile.clone(),
                expected_version: Some(affirmed.version),
                revision: reopened.revision,
                reflection: vec![],
                completes: None,
                events: vec![],
            })
            .await
            .unwrap();
        let stored = profiles.get(affirmed.user_id).await.unwrap().unwrap();
        assert!(!stored.locked);
        assert_eq!(stored.affirmed_at, None, "the affirmation is cleared");
        assert!(checkins.candidates(None, limit).await.unwrap().is_empty());
        assert!(profiles.locked_users(None, limit).await.unwrap().is_empty());
    }
);

dual_test!(
    a_guarded_batch_skips_people_with_a_recent_check_in_each_by_their_own_cadence,
    |db| {
        let repo = DieselCheckInRepository::new(db.clone());
        assert_eq!(repo.insert_unless_recent_batch(&[]).await.unwrap(), 0);
        let weekly_recent = user(&db, "a@example.org").await.id;
        let monthly_recent = user(&db, "b@example.org").await.id;
        let weekly_old = user(&db, "c@example.org").await.id;
        let never = user(&db, "d@example.org").await.id;
        let exact = user(&db, "e@example.org").await.id;
        for (who, ago) in [
            (weekly_recent, Duration::days(6)),
            (monthly_recent, Duration::days(20)),
            (weekly_old, Duration::days(8)),
            // Exactly one cadence old: due (the guard is "created after since").
            (exact, Duration::days(7)),
        ] {
            repo.insert(&checkin(who, T0 - ago)).await.unwrap();
        }
        let deleted = user(&db, "gone@example.org").await.id;
        DieselUserRepository::new(db.clone())
            .delete(deleted)
            .await
            .unwrap();

        let batch = [
            guarded(weekly_recent, T0, 7),
            guarded(monthly_recent, T0, 30),
            guarded(weekly_old, T0, 7),
            guarded(never, T0, 30),
            guarded(exact, T0, 7),
            // A second one for the same person in the same call is not written.
            guarded(never, T0 + Duration::seconds(1), 30),
            // Nor one for a person deleted since the run read them.
            guarded(deleted, T0, 7),
        ];
        assert_eq!(repo.insert_unless_recent_batch(&batch).await.unwrap(), 3);
        for (who, n) in [
            (weekly_recent, 1),
            (monthly_recent, 1),
            (weekly_old, 2),
            (never, 1),
            (exact, 2),
            (deleted, 0),
        ] {
            assert_eq!(checkins_of(&db, who).await, n, "{who}");
        }
        let written = repo.get(never, batch[3].checkin.id).await.unwrap();
        assert_eq!(written, Some(batch[3].checkin.clone()), "round trip");
        // Running the same batch again writes nothing.
        assert_eq!(repo.insert_unless_recent_batch(&batch).await.unwrap(), 0);
        assert_eq!(count(&db, "coaching_checkin").await, 7);
    }
);

dual_test!(
    guarded_batches_racing_on_two_hosts_write_one_check_in_per_person,
    |db, url| {
        let mut people = Vec::new();
        for n in 0..40 {
            people.push(user(&db, &format!("r{n}@example.org")).await.id);
        }
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
        for n in 0..16 {
            let repo = repos[n % 2].clone();
            // Overlapping windows of people, some in reverse order: a lock order that followed
            // the batch's order would deadlock here.
            let start = (n * 5) % 30;
            let mut batch: Vec<GuardedCheckIn> = people[start..start + 10]
                .iter()
                .map(|who| guarded(*who, T0, 7))
                .collect();
            if n % 3 == 0 {
                batch.reverse();
            }
            tasks.spawn(async move { repo.insert_unless_recent_batch(&batch).await });
        }
        let inserted: u64 = tasks.join_all().await.into_iter().map(Result::unwrap).sum();
        let touched: std::collections::BTreeSet<UserId> = (0..16)
            .flat_map(|n| people[(n * 5) % 30..(n * 5) % 30 + 10].to_vec())
            .collect();
        assert_eq!(inserted, touched.len() as u64, "one per person");
        for who in &touched {
            assert_eq!(checkins_of(&db, *who).await, 1, "{who}");
        }
        assert_eq!(count(&db, "coaching_checkin").await, touched.len() as i64);
    }
);

dual_test!(the_rollup_of_many_people_matches_each_persons_own, |db| {
    let repo = DieselTaskMappingRepository::new(db.clone());
    let ada = user(&db, "ada@example.org").await.id;
    let bob = user(&db, "bob@example.org").await.id;
    let idle = user(&db, "idle@example.org").await.id;
    let outside = user(&db, "outside@example.org").await.id;
    let window = Window::ending_at(T0, 14).unwrap();
    let items = [
        (ada, "a1", Foundation::Love, 30, T0),
        (ada, "a2", Foundation::Love, 15, T0 - Duration::minutes(5)),
        (ada, "a3", Foundation::Vocation, 60, T0 - Duration::days(3)),
        // The window is (to - 14 days, to]: the first is out, the second in.
        (ada, "a4", Foundation::Mission, 45, window.from),
        (
            ada,
            "a5",
            Foundation::Mission,
            20,
            window.from + Duration::microseconds(1),
        ),
        (
            ada,
            "a6",
            Foundation::Strength,
            10,
            T0 + Duration::seconds(1),
        ),
        (bob, "b1", Foundation::LongTerm, 90, T0 - Duration::days(13)),
        (outside, "o1", Foundation::Love, 90, T0 - Duration::days(15)),
    ];
    for (who, external, foundation, minutes, at) in items {
        repo.upsert(who, &input(external, foundation, minutes, at), T0)
            .await
            .unwrap();
    }
    // In each zone, the people's dates and sums are each one's own (Tokyo's dates differ from
    // UTC's for entries after 15:00 UTC; Berlin's window crosses no change in November).
    for zone in ["UTC", "Asia/Tokyo", "Europe/Berlin"] {
        let zone = TimeZone::parse(zone).unwrap();
        let all = repo
            .daily_minutes_of(&[ada, bob, idle, outside], &window, &zone)
            .await
            .unwrap();
        assert_eq!(all.keys().copied().collect::<Vec<_>>(), {
            let mut k = vec![ada, bob];
            k.sort();
            k
        });
        for who in [ada, bob] {
            assert_eq!(
                all[&who],
                repo.daily_minutes(who, &window, &zone).await.unwrap(),
                "{who} in {}",
                zone.name()
            );
        }
        let ada_total: i64 = all[&ada].iter().map(|d| d.minutes.total()).sum();
        assert_eq!(ada_total, 30 + 15 + 60 + 20);
        assert!(
            repo.daily_minutes_of(&[], &window, &zone)
                .await
                .unwrap()
                .is_empty()
        );
    }
});
