//! The person's time zone (docs/api.md, "Weeks and the person's time zone"): the setting, the daily
//! and weekly work patterns dated in that zone's calendar, around a change of offset and a week
//! boundary, and check-ins that observe the person's own calendar days.

use std::collections::BTreeMap;

use domain::account::TimeZone;
use domain::foundation::Foundation;
use domain::integration::monday_of;
use reqwest::Method;
use serde_json::{Value, json};
use time::{Date, Duration, OffsetDateTime};

use crate::helpers::{
    GUT_ANSWERS, OPERATOR_KEY, SignedIn, TestApp, affirm, assert_error, assert_invalid, discover,
    json_body, rfc3339, send, spawn_app,
};
use crate::mapping_rules::post_batch;

/// The six foundation keys, in contract order.
fn keys() -> [&'static str; 6] {
    Foundation::ALL.map(Foundation::key)
}
async fn get(app: &TestApp, who: &SignedIn, path: &str) -> Value {
    json_body(
        send(app.with_bearer(&who.access_jwt, Method::GET, path)).await,
        200,
    )
    .await
}

async fn put_zone(app: &TestApp, who: &SignedIn, body: &Value) -> reqwest::Response {
    send(
        app.with_bearer(&who.access_jwt, Method::PUT, "/api/me/settings")
            .json(body),
    )
    .await
}

fn date(value: &Value) -> Date {
    Date::parse(
        value.as_str().expect("a date"),
        &time::format_description::well_known::Iso8601::DATE,
    )
    .expect("YYYY-MM-DD")
}

#[tokio::test]
async fn the_time_zone_is_utc_until_set_and_an_unknown_zone_changes_nothing() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    assert_eq!(
        get(&app, &ada, "/api/me/settings").await,
        json!({"time_zone": "UTC"})
    );
    assert_eq!(
        get(&app, &ada, "/integration/work-patterns?days=1").await["time_zone"],
        "UTC"
    );

    let set = json_body(
        put_zone(&app, &ada, &json!({"time_zone": "Asia/Tokyo"})).await,
        200,
    )
    .await;
    assert_eq!(set, json!({"time_zone": "Asia/Tokyo"}));

    for bad in ["Mars/Olympus_Mons", "", "+09:00", "Asia/Tokyo/../../etc"] {
        assert_invalid(
            put_zone(&app, &ada, &json!({"time_zone": bad})).await,
            "time_zone",
        )
        .await;
    }
    assert_invalid(
        put_zone(&app, &ada, &json!({"time_zone": 9})).await,
        "time_zone",
    )
    .await;
    assert_eq!(
        get(&app, &ada, "/api/me/settings").await,
        json!({"time_zone": "Asia/Tokyo"}),
        "a refused change changes nothing"
    );
    assert_eq!(
        get(&app, &ada, "/integration/work-patterns/weekly?weeks=2").await["time_zone"],
        "Asia/Tokyo"
    );
    let export = json_body(
        send(app.as_browser(&ada, Method::GET, "/api/me/export")).await,
        200,
    )
    .await;
    assert_eq!(export["settings"], json!({"time_zone": "Asia/Tokyo"}));

    // Another person keeps their own.
    let bob = app.dev_login("bob@example.org").await;
    assert_eq!(
        get(&app, &bob, "/api/me/settings").await,
        json!({"time_zone": "UTC"})
    );
}

#[tokio::test]
async fn weeks_outside_one_to_104_are_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let weekly = |query: &'static str| {
        send(app.with_bearer(
            &ada.access_jwt,
            Method::GET,
            &format!("/integration/work-patterns/weekly{query}"),
        ))
    };
    for bad in ["?weeks=0", "?weeks=105", "?weeks=-1"] {
        assert_invalid(weekly(bad).await, "weeks").await;
    }
    assert_error(weekly("?weeks=x").await, 400, "invalid_json").await;
    let default = json_body(weekly("").await, 200).await;
    assert_eq!(default["weeks"].as_array().unwrap().len(), 12);
    let most = json_body(weekly("?weeks=104").await, 200).await;
    assert_eq!(most["weeks"].as_array().unwrap().len(), 104);
}

/// One entry to send and where it must land.
struct Entry {
    at: OffsetDateTime,
    foundation: Option<&'static str>,
    minutes: i64,
}

#[tokio::test]
async fn weekly_and_daily_sums_agree_to_the_minute_around_a_change_of_offset_and_a_week_boundary() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    json_body(
        put_zone(&app, &ada, &json!({"time_zone": "Europe/Berlin"})).await,
        200,
    )
    .await;
    let berlin = TimeZone::parse("Europe/Berlin").unwrap();
    let now = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();

    // The latest change of offset at least a day ago (Berlin has two a year).
    let change = berlin
        .offset_spans(now - Duration::days(300), now)
        .iter()
        .skip(1)
        .map(|span| span.from)
        .filter(|at| *at < now - Duration::days(1))
        .max()
        .expect("a change of offset within 300 days");
    let day = berlin.date_of(change);
    let monday = monday_of(day);
    let this_monday = monday_of(berlin.date_of(now));
    let second = Duration::seconds(1);
    let candidates = [
        (change - second, Some("love"), 10),
        (change, Some("strength"), 20),
        (change + Duration::hours(1), None, 15),
        (berlin.start_of(day) - second, Some("mission"), 30),
        (berlin.start_of(day), Some("vocation"), 40),
        (berlin.start_of(monday) - second, Some("short_term"), 50),
        (berlin.start_of(monday), Some("long_term"), 60),
        (
            berlin.start_of(monday + Duration::weeks(1)) - second,
            Some("love"),
            70,
        ),
        (
            berlin.start_of(monday + Duration::weeks(1)),
            Some("love"),
            80,
        ),
        (berlin.start_of(this_monday) - second, Some("mission"), 90),
        (berlin.start_of(this_monday), Some("vocation"), 100),
        (now - Duration::minutes(1), Some("short_term"), 110),
    ];
    // Nothing in the future: the current week ends now.
    let entries: Vec<Entry> = candidates
        .into_iter()
        .filter(|(at, _, _)| *at < now)
        .map(|(at, foundation, minutes)| Entry {
            at,
            foundation,
            minutes,
        })
        .collect();
    let items: Vec<Value> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            json!({
                "external_task_id": format!("tz-{i}"),
                "task_label": format!("entry {i}"),
                "foundation": e.foundation,
                "minutes": e.minutes,
                "occurred_at": rfc3339(e.at),
            })
        })
        .collect();
    post_batch(&app, &ada, &items).await;

    let daily = get(&app, &ada, "/integration/work-patterns?days=365").await;
    let weekly = get(&app, &ada, "/integration/work-patterns/weekly?weeks=52").await;
    assert_eq!(daily["time_zone"], "Europe/Berlin");
    assert_eq!(weekly["time_zone"], "Europe/Berlin");

    // Each local date's minutes, as the daily series gives them.
    let by_date: BTreeMap<Date, [i64; 6]> = daily["daily"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                date(&d["date"]),
                keys().map(|f| d["minutes"][f].as_i64().unwrap()),
            )
        })
        .collect();
    assert_eq!(
        by_date.keys().next_back(),
        Some(&berlin.date_of(now)),
        "the last day is today in Berlin"
    );

    let weeks = weekly["weeks"].as_array().unwrap();
    assert_eq!(weeks.len(), 52);
    assert_eq!(date(&weeks[51]["week_start"]), this_monday);
    let mut weekly_total = 0;
    for (i, week) in weeks.iter().enumerate() {
        let start = date(&week["week_start"]);
        assert_eq!(start, this_monday - Duration::weeks(51 - i as i64));
        // The daily series covers every date of these weeks whole (from 363 days back).
        let mut summed = [0_i64; 6];
        for (_, minutes) in by_date.range(start..start + Duration::weeks(1)) {
            for (s, m) in summed.iter_mut().zip(minutes) {
                *s += m;
            }
        }
        let minutes = keys().map(|f| week["minutes"][f].as_i64().unwrap());
        assert_eq!(minutes, summed, "the week of {start}");
        assert_eq!(
            week["total_minutes"].as_i64().unwrap(),
            summed.iter().sum::<i64>()
        );
        weekly_total += week["total_minutes"].as_i64().unwrap();
    }
    assert_eq!(
        weekly_total,
        daily["total_minutes"].as_i64().unwrap(),
        "every entry is in both"
    );

    // Where each entry landed: its local date in the daily series, its local week in the
    // weekly one, and the two seconds either side of a local midnight on different dates.
    let mut expected_days: BTreeMap<Date, [i64; 6]> = BTreeMap::new();
    let mut expected_weeks: BTreeMap<Date, ([i64; 6], i64)> = BTreeMap::new();
    for e in &entries {
        let local = berlin.date_of(e.at);
        let week = expected_weeks.entry(monday_of(local)).or_default();
        match e.foundation {
            Some(f) => {
                let i = keys().iter().position(|x| *x == f).unwrap();
                expected_days.entry(local).or_default()[i] += e.minutes;
                week.0[i] += e.minutes;
            }
            None => week.1 += e.minutes,
        }
    }
    assert_eq!(
        berlin.date_of(berlin.start_of(day) - second),
        day.previous_day().unwrap()
    );
    assert_eq!(berlin.date_of(change - second), berlin.date_of(change));
    for (local, minutes) in &expected_days {
        assert_eq!(by_date.get(local), Some(minutes), "the local date {local}");
    }
    for week in weeks {
        let start = date(&week["week_start"]);
        let (minutes, unmapped) = expected_weeks.get(&start).copied().unwrap_or_default();
        assert_eq!(
            keys().map(|f| week["minutes"][f].as_i64().unwrap()),
            minutes,
            "the week of {start}"
        );
        assert_eq!(week["unmapped_minutes"].as_i64().unwrap(), unmapped);
    }
    let unmapped_week = &weeks
        .iter()
        .find(|w| date(&w["week_start"]) == monday_of(berlin.date_of(change + Duration::hours(1))))
        .unwrap();
    assert_eq!(unmapped_week["unmapped_minutes"], 15);
    assert_eq!(daily["unmapped_minutes"], 15);
}

/// The observation of a check-in, asked for (`POST /coaching/checkins`) or written by the run.
async fn observation_of(app: &TestApp, who: &SignedIn) -> String {
    let list = get(app, who, "/coaching/checkins").await;
    let items = list["items"].as_array().expect("items");
    assert_eq!(items.len(), 1, "{list:#}");
    items[0]["observation"]
        .as_str()
        .expect("an observation")
        .to_owned()
}

#[tokio::test]
async fn a_check_in_observes_the_persons_own_calendar_days() {
    let app = spawn_app().await;
    let tokyo = TimeZone::parse("Asia/Tokyo").unwrap();
    // Not within two minutes of Tokyo's midnight, so the days cannot change under the test.
    let to_midnight =
        |now: OffsetDateTime| tokyo.start_of(tokyo.date_of(now) + Duration::days(1)) - now;
    let wait = to_midnight(OffsetDateTime::now_utc());
    if wait < Duration::minutes(2) {
        tokio::time::sleep((wait + Duration::seconds(5)).unsigned_abs()).await;
    }
    let now = OffsetDateTime::now_utc();
    // The last 14 days in Tokyo: from the local midnight that starts the 13th day before today.
    let start = tokyo.start_of(tokyo.date_of(now) - Duration::days(13));
    let entries = |prefix: &str| {
        [
            // A minute before that midnight: the day before the first, not observed (it is
            // inside the last 14 × 24 hours unless Tokyo's clock reads 23:59 now).
            ("before", "love", 600, start - Duration::minutes(1)),
            ("at", "vocation", 60, start),
            ("after", "mission", 30, start + Duration::minutes(1)),
            ("today", "strength", 15, now - Duration::minutes(1)),
        ]
        .map(|(id, foundation, minutes, at)| {
            json!({"external_task_id": format!("{prefix}-{id}"), "task_label": id,
                   "foundation": foundation, "minutes": minutes, "occurred_at": rfc3339(at)})
        })
    };
    // Ada asks for a check-in; Bob, with the same entries, gets his from the scheduled run.
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    for (who, prefix) in [(&ada, "ada"), (&bob, "bob")] {
        json_body(
            put_zone(&app, who, &json!({"time_zone": "Asia/Tokyo"})).await,
            200,
        )
        .await;
        discover(&app, &who.access_jwt, GUT_ANSWERS).await;
        affirm(&app, &who.access_jwt).await;
        post_batch(&app, who, &entries(prefix)).await;
    }
    json_body(
        send(app.with_bearer(&ada.access_jwt, Method::POST, "/coaching/checkins")).await,
        201,
    )
    .await;
    let report = json_body(
        send(app.with_key(OPERATOR_KEY, Method::POST, "/coaching/run")).await,
        200,
    )
    .await;
    assert_eq!(report["created"], 1, "{report}");

    let manual = observation_of(&app, &ada).await;
    assert!(
        manual.starts_with(
            "In the last 14 days you logged 1 h 45 min, all of it classified. Of the classified \
             time, the largest share went to Vocation (57%), then Mission (29%)."
        ),
        "{manual}"
    );
    assert!(!manual.contains("10 h"), "{manual}");
    assert_eq!(observation_of(&app, &bob).await, manual);
}
