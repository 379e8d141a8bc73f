//! Timewarrior without a mapping file: every closed interval goes without a foundation and
//! with its tags; ids, labels and minutes are those the mapping file would give.

use discovery_sync::client::batch_bodies;
use discovery_sync::entries::{plan, plan_for_rules};
use discovery_sync::mapping::Mapping;
use discovery_sync::timew::Interval;
use serde_json::Value;
use time::macros::datetime;

fn interval(h: i64, minutes: i64, tags: &[&str], open: bool) -> Interval {
    let start = datetime!(2026-11-20 00:00 UTC) + time::Duration::hours(h);
    Interval {
        start,
        end: (!open).then(|| start + time::Duration::minutes(minutes)),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
    }
}

#[test]
fn every_closed_interval_is_sent_without_a_foundation_with_its_tags_and_the_same_ids() {
    let intervals = [
        interval(9, 90, &["writing", "deep work"], false),
        interval(11, 20, &["private"], false),
        interval(12, 10, &[], false),
        interval(13, 0, &["gym"], true),
    ];
    let rules = plan_for_rules(&intervals);
    assert_eq!(
        (
            rules.intervals,
            rules.open,
            rules.skipped,
            rules.items.len()
        ),
        (4, 1, 0, 3)
    );
    assert!(rules.items.iter().all(|i| i.foundation.is_none()));
    assert_eq!(vec!["writing", "deep work"], rules.items[0].tags);
    assert!(rules.items[2].tags.is_empty());
    // A mapping that sends everything gives the same ids, labels and minutes, and no tags.
    let mapping = Mapping::parse("default = \"love\"").unwrap();
    let mapped = plan(&intervals, &mapping);
    for (a, b) in rules.items.iter().zip(&mapped.items) {
        assert_eq!(
            (&a.external_task_id, &a.task_label, a.minutes, a.occurred_at),
            (&b.external_task_id, &b.task_label, b.minutes, b.occurred_at)
        );
        assert!(b.tags.is_empty());
    }
    let body: Value = serde_json::from_str(&batch_bodies(&rules.items).unwrap()[0]).unwrap();
    let first = &body["items"][0];
    assert!(first.get("foundation").is_none(), "{first}");
    assert_eq!(first["tags"], serde_json::json!(["writing", "deep work"]));
    // An untagged interval sends no tags field at all (the service's default is []).
    assert!(body["items"][2].get("tags").is_none());
}

#[test]
fn a_mapped_body_is_exactly_what_it_was_before_tags_existed() {
    let mapping = Mapping::parse("default = \"love\"").unwrap();
    let plan = plan(&[interval(9, 30, &["gym"], false)], &mapping);
    let body = &batch_bodies(&plan.items).unwrap()[0];
    let id = &plan.items[0].external_task_id;
    assert_eq!(
        &format!(
            r#"{{"items":[{{"external_task_id":"{id}","task_label":"gym","foundation":"love","minutes":30,"occurred_at":"2026-11-20T09:00:00Z"}}]}}"#
        ),
        body
    );
}

#[test]
fn tags_beyond_the_contract_are_cut_with_a_warning_naming_the_interval() {
    let long = "x".repeat(130);
    let many: Vec<String> = (1..=22).map(|i| format!("t{i}")).collect();
    let mut tags: Vec<&str> = vec![long.as_str()];
    tags.extend(many.iter().map(String::as_str));
    let plan = plan_for_rules(&[interval(9, 30, &[], false), interval(10, 30, &tags, false)]);
    assert_eq!(20, plan.items[1].tags.len());
    assert_eq!(100, plan.items[1].tags[0].chars().count());
    assert_eq!(2, plan.warnings.len(), "{:?}", plan.warnings);
    assert!(plan.warnings.iter().all(|w| w.starts_with("interval 2: ")));
}
