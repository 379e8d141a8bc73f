//! Unit tests of the pieces of `discovery-sync`: the mapping rules, the id derivation, minutes,
//! splitting, labels, reading an export and cutting batches. No tracker, no service.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod activitywatch;
mod aw_limits;
mod calendar_zones;
mod cursor;
mod date_order;
mod durations;
mod fuzz;
mod hostile;
mod ics;
mod import;
mod items;
mod limits;
mod lines;
mod offsets;
mod people;
mod server_rules;
mod shape;
mod streaming;
mod sweep;
mod tags;
mod zones;

use discovery_sync::client::{MAX_BATCH, batch_bodies};
use discovery_sync::entries::{Item, external_id, label, pieces, plan, rounded_minutes};
use discovery_sync::mapping::{Mapping, Target};
use discovery_sync::timew::{Interval, parse_export, parse_time};
use discovery_sync::{FOUNDATIONS, Failure};
use serde_json::Value;
use time::OffsetDateTime;
use time::macros::datetime;

fn tags(list: &[&str]) -> Vec<String> {
    list.iter().map(|t| (*t).to_owned()).collect()
}

fn foundation(name: &str) -> Target {
    Target::Foundation(name.to_owned())
}

const RULES: &str = r#"
default = "mission"

[[rule]]
tag = "private"
foundation = "skip"

[[rule]]
tag = "writing"
foundation = "vocation"

[[rule]]
tag = "gym"
foundation = "strength"
"#;

// --- mapping ---------------------------------------------------------------------------------

#[test]
fn the_first_rule_whose_tag_the_interval_carries_wins() {
    let mapping = Mapping::parse(RULES).unwrap();
    assert_eq!(
        mapping.target_of(&tags(&["gym", "writing"])),
        &foundation("vocation")
    );
    assert_eq!(mapping.target_of(&tags(&["gym"])), &foundation("strength"));
    assert_eq!(
        mapping.target_of(&tags(&["writing", "private"])),
        &Target::Skip
    );
}

#[test]
fn an_interval_no_rule_matches_gets_the_default_and_tags_match_exactly() {
    let mapping = Mapping::parse(RULES).unwrap();
    assert_eq!(
        mapping.target_of(&tags(&["errands"])),
        &foundation("mission")
    );
    assert_eq!(mapping.target_of(&[]), &foundation("mission"));
    assert_eq!(mapping.target_of(&tags(&["Gym"])), &foundation("mission"));
    assert_eq!(mapping.target_of(&tags(&["gym2"])), &foundation("mission"));
}

#[test]
fn the_default_is_skip_when_left_out_or_said() {
    assert_eq!(Mapping::parse("").unwrap().default, Target::Skip);
    assert_eq!(
        Mapping::parse("default = \"skip\"").unwrap().default,
        Target::Skip
    );
    let mapping = Mapping::parse("[[rule]]\ntag = \"a\"\nfoundation = \"love\"\n").unwrap();
    assert_eq!(mapping.target_of(&tags(&["b"])), &Target::Skip);
}

#[test]
fn every_foundation_of_the_contract_is_accepted() {
    for name in FOUNDATIONS {
        let mapping = Mapping::parse(&format!("default = \"{name}\"")).unwrap();
        assert_eq!(mapping.default, foundation(name));
    }
}

#[test]
fn an_unknown_foundation_is_refused_naming_where_and_the_choices() {
    let error = Mapping::parse("[[rule]]\ntag = \"a\"\nfoundation = \"Love\"\n").unwrap_err();
    assert!(
        error.contains("rule 1") && error.contains("\"Love\"") && error.contains("long_term"),
        "{error}"
    );
    let error = Mapping::parse("default = \"health\"").unwrap_err();
    assert!(error.starts_with("default:"), "{error}");
}

#[test]
fn unknown_keys_blank_tags_and_bad_syntax_are_refused() {
    assert!(
        Mapping::parse("defualt = \"love\"")
            .unwrap_err()
            .contains("defualt")
    );
    let typo = Mapping::parse("[[rule]]\ntag = \"a\"\nfoundaton = \"love\"\n").unwrap_err();
    assert!(typo.contains("foundaton"), "{typo}");
    assert!(
        Mapping::parse("[[rule]]\ntag = \" \"\nfoundation = \"love\"\n")
            .unwrap_err()
            .contains("empty")
    );
    assert!(
        Mapping::parse("[[rule]]\ntag = \"a\"\n")
            .unwrap_err()
            .contains("foundation")
    );
    assert!(Mapping::parse("default = love").is_err());
}

#[test]
fn loading_a_missing_file_is_bad_usage() {
    let error = Mapping::load(std::path::Path::new("/nonexistent/mapping.toml")).unwrap_err();
    assert_eq!(error.exit_code(), 2);
    assert!(error.message().contains("/nonexistent/mapping.toml"));
}

// --- ids, labels, minutes ----------------------------------------------------------------------

#[test]
fn the_id_is_the_start_and_a_short_hash_of_the_sorted_tags() {
    let start = datetime!(2026-11-20 09:00:00 UTC);
    let id = external_id(start, &tags(&["writing", "deep work"]));
    assert_eq!(
        id,
        external_id(start, &tags(&["deep work", "writing"])),
        "order does not matter"
    );
    let (prefix, hash) = id.rsplit_once(':').unwrap();
    assert_eq!(prefix, "timew:20261120T090000Z");
    assert_eq!(hash.len(), 16);
    assert!(
        hash.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
    assert!(id.len() <= 200);
}

#[test]
fn the_id_changes_with_the_start_or_the_tags_and_never_confuses_joined_tags() {
    let start = datetime!(2026-11-20 09:00:00 UTC);
    let base = external_id(start, &tags(&["a", "b"]));
    assert_ne!(
        base,
        external_id(start + time::Duration::SECOND, &tags(&["a", "b"]))
    );
    assert_ne!(base, external_id(start, &tags(&["a"])));
    assert_ne!(base, external_id(start, &tags(&["a b"])));
    assert_ne!(base, external_id(start, &tags(&["a,b"])));
    assert_ne!(external_id(start, &[]), external_id(start, &tags(&[""])));
}

#[test]
fn the_id_is_stable_across_versions() {
    // Pinned: a change here would make every re-run create duplicates instead of updating.
    let id = external_id(datetime!(2026-11-20 09:00:00 UTC), &tags(&["gym"]));
    let expected_hash = {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(br#"["gym"]"#))[..16].to_owned()
    };
    assert_eq!(id, format!("timew:20261120T090000Z:{expected_hash}"));
}

#[test]
fn the_label_is_the_tags_joined_and_cut_to_500_characters() {
    assert_eq!(
        label(&tags(&["deep work", "writing"])).as_deref(),
        Some("deep work, writing")
    );
    assert_eq!(label(&[]), None);
    let long = label(&tags(&[&"é".repeat(400), &"x".repeat(400)])).unwrap();
    assert_eq!(long.chars().count(), 500);
    assert!(long.starts_with("éé"));
}

#[test]
fn minutes_round_to_the_nearest_minute_half_up() {
    assert_eq!(rounded_minutes(0), 0);
    assert_eq!(rounded_minutes(29), 0);
    assert_eq!(rounded_minutes(30), 1);
    assert_eq!(rounded_minutes(89), 1);
    assert_eq!(rounded_minutes(90), 2);
    assert_eq!(rounded_minutes(5_400), 90);
    assert_eq!(rounded_minutes(-60), 0);
}

// --- splitting ---------------------------------------------------------------------------------

#[test]
fn an_interval_up_to_a_day_is_one_piece_even_across_midnight() {
    let start = datetime!(2026-11-20 23:00:00 UTC);
    assert_eq!(
        pieces(start, datetime!(2026-11-21 01:00:00 UTC)),
        vec![(start, 120)]
    );
    let day = datetime!(2026-11-20 06:00:00 UTC);
    assert_eq!(pieces(day, day + time::Duration::DAY), vec![(day, 1_440)]);
    // 1,440 minutes and 29 seconds still round to 1,440.
    let almost = day + time::Duration::DAY + time::Duration::seconds(29);
    assert_eq!(pieces(day, almost).len(), 1);
}

#[test]
fn a_longer_interval_is_cut_at_each_utc_midnight_and_adds_up() {
    let start = datetime!(2026-11-18 20:00:00 UTC);
    let end = datetime!(2026-11-21 02:00:00 UTC);
    assert_eq!(
        pieces(start, end),
        vec![
            (start, 240),
            (datetime!(2026-11-19 00:00:00 UTC), 1_440),
            (datetime!(2026-11-20 00:00:00 UTC), 1_440),
            (datetime!(2026-11-21 00:00:00 UTC), 120),
        ]
    );
}

#[test]
fn split_pieces_with_seconds_add_up_to_the_rounded_total_and_stay_within_a_day() {
    let start = datetime!(2026-11-18 23:59:31 UTC);
    let end = datetime!(2026-11-20 00:00:31 UTC);
    let parts = pieces(start, end);
    let total: i64 = parts.iter().map(|p| p.1).sum();
    assert_eq!(total, rounded_minutes((end - start).whole_seconds()));
    assert!(
        parts.iter().all(|p| (0..=1_440).contains(&p.1)),
        "{parts:?}"
    );
    assert_eq!(parts.len(), 3);
}

// --- the plan ----------------------------------------------------------------------------------

fn interval(start: OffsetDateTime, end: Option<OffsetDateTime>, t: &[&str]) -> Interval {
    Interval {
        start,
        end,
        tags: tags(t),
    }
}

#[test]
fn the_plan_leaves_out_open_and_skipped_intervals_and_counts_them() {
    let mapping = Mapping::parse(RULES).unwrap();
    let at = datetime!(2026-11-20 09:00:00 UTC);
    let intervals = [
        interval(at, Some(at + time::Duration::minutes(90)), &["writing"]),
        interval(
            at + time::Duration::hours(2),
            Some(at + time::Duration::hours(3)),
            &["private"],
        ),
        interval(
            at + time::Duration::hours(4),
            Some(at + time::Duration::hours(5)),
            &[],
        ),
        interval(at + time::Duration::hours(6), None, &["gym"]),
    ];
    let plan = plan(&intervals, &mapping);
    assert_eq!(
        (plan.intervals, plan.open, plan.skipped, plan.split),
        (4, 1, 1, 0)
    );
    assert_eq!(
        plan.items,
        vec![
            Item {
                external_task_id: external_id(at, &tags(&["writing"])),
                task_label: Some("writing".into()),
                tags: Vec::new(),
                foundation: Some("vocation".into()),
                minutes: 90,
                occurred_at: at,
            },
            Item {
                external_task_id: external_id(at + time::Duration::hours(4), &[]),
                task_label: None,
                tags: Vec::new(),
                foundation: Some("mission".into()),
                minutes: 60,
                occurred_at: at + time::Duration::hours(4),
            },
        ]
    );
}

// --- reading an export ---------------------------------------------------------------------------

#[test]
fn an_export_is_read_with_open_intervals_and_untagged_ones() {
    let text = r#"[
{"id":3,"start":"20261121T090000Z","end":"20261121T103000Z","tags":["deep work","writing"],"annotation":"x"},
{"id":2,"start":"20261121T110000Z","end":"20261121T112029Z"},
{"id":1,"start":"20261122T080000Z","tags":["reading"]}
]"#;
    let intervals = parse_export(text).unwrap();
    assert_eq!(intervals.len(), 3);
    assert_eq!(intervals[0].start, datetime!(2026-11-21 09:00:00 UTC));
    assert_eq!(intervals[0].end, Some(datetime!(2026-11-21 10:30:00 UTC)));
    assert_eq!(intervals[0].tags, tags(&["deep work", "writing"]));
    assert!(intervals[1].tags.is_empty());
    assert_eq!(intervals[2].end, None);
    assert!(parse_export("[\n]\n").unwrap().is_empty());
}

#[test]
fn a_bad_export_is_a_failure_naming_the_interval() {
    let error = parse_export(r#"[{"start":"2026-11-21 09:00"}]"#).unwrap_err();
    assert_eq!(error.exit_code(), 1);
    assert!(error.message().contains("interval 1"), "{error}");
    assert!(matches!(parse_export("{}"), Err(Failure::Failed(_))));
    assert!(parse_time("20261121T090000").is_err());
}

// --- batches ---------------------------------------------------------------------------------------

#[test]
fn bodies_hold_at_most_a_thousand_items_each_in_order() {
    let at = datetime!(2026-11-20 09:00:00 UTC);
    let items: Vec<Item> = (0..2_001)
        .map(|i| Item {
            external_task_id: format!("t{i}"),
            task_label: None,
            tags: Vec::new(),
            foundation: Some("love".into()),
            minutes: 1,
            occurred_at: at,
        })
        .collect();
    let bodies = batch_bodies(&items).unwrap();
    let parsed: Vec<Value> = bodies
        .iter()
        .map(|b| serde_json::from_str(b).unwrap())
        .collect();
    let sizes: Vec<usize> = parsed
        .iter()
        .map(|b| b["items"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, vec![MAX_BATCH, MAX_BATCH, 1]);
    assert_eq!(parsed[1]["items"][0]["external_task_id"], "t1000");
    assert_eq!(parsed[0]["items"][0]["occurred_at"], "2026-11-20T09:00:00Z");
    assert!(parsed[0]["items"][0]["task_label"].is_null());
    assert!(batch_bodies(&[]).unwrap().is_empty());
}

// --- the plain-http warning --------------------------------------------------------------------

#[test]
fn plain_http_to_another_machine_is_warned_about_and_loopback_or_https_is_not() {
    use discovery_sync::cleartext::warning;
    for quiet in [
        "http://127.0.0.1:8011",
        "http://127.8.9.10:8011/",
        "http://localhost:8011",
        "http://LOCALHOST.:8011",
        "http://[::1]:8011",
        "http://[::ffff:127.0.0.1]:8011",
        "https://discovery.example.org",
        "https://192.168.1.20:8011",
        "not a url",
    ] {
        assert_eq!(warning(quiet), None, "{quiet}");
    }
    for loud in [
        "http://discovery.example.org",
        "http://192.168.1.20:8011",
        "http://10.0.0.1",
        "http://[2001:db8::1]:8011",
        "http://localhost.example.org",
    ] {
        let text = warning(loud).unwrap_or_else(|| panic!("{loud} gets a warning"));
        assert!(
            text.contains("plain http") && text.contains("https://"),
            "{text}"
        );
    }
    assert!(
        warning("http://discovery.example.org:8011/x")
            .unwrap()
            .contains("discovery.example.org")
    );
}
