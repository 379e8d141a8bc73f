//! Imported entries to the items sent: no foundation, tags and label kept, long entries split.

use discovery_sync::client::batch_bodies;
use discovery_sync::import::ImportedEntry;
use discovery_sync::items::items_of;
use serde_json::Value;
use time::macros::datetime;

fn entry(id: &str, minutes: u32, at: time::OffsetDateTime) -> ImportedEntry {
    ImportedEntry {
        external_task_id: id.into(),
        task_label: Some("Long session".into()),
        tags: vec!["project:Website".into(), "dev".into()],
        project: Some("Website".into()),
        minutes,
        occurred_at: at,
    }
}

#[test]
fn an_entry_up_to_a_day_is_one_item_without_a_foundation_with_its_tags() {
    let at = datetime!(2026-03-16 22:00 UTC);
    let (items, split) = items_of(&[entry("toggl:abc", 1_440, at)]);
    assert_eq!(0, split);
    assert_eq!(1, items.len());
    let item = &items[0];
    assert_eq!(
        ("toggl:abc", 1_440, at, None),
        (
            item.external_task_id.as_str(),
            item.minutes,
            item.occurred_at,
            item.foundation.as_deref()
        )
    );
    let body: Value = serde_json::from_str(&batch_bodies(&items).unwrap()[0]).unwrap();
    let sent = &body["items"][0];
    assert!(sent.get("foundation").is_none(), "{sent}");
    assert_eq!(sent["tags"], serde_json::json!(["project:Website", "dev"]));
    assert_eq!(sent["task_label"], "Long session");
}

#[test]
fn a_longer_entry_is_split_at_utc_midnight_keeping_its_id_on_the_first_piece() {
    let at = datetime!(2026-03-16 20:00 UTC);
    // 30 hours: 4 + 24 + 2.
    let (items, split) = items_of(&[entry("clockify:abc", 1_800, at)]);
    assert_eq!(1, split);
    assert_eq!(
        vec![
            ("clockify:abc".to_owned(), at, 240),
            (
                "clockify:abc:d1".to_owned(),
                datetime!(2026-03-17 00:00 UTC),
                1_440
            ),
            (
                "clockify:abc:d2".to_owned(),
                datetime!(2026-03-18 00:00 UTC),
                120
            ),
        ],
        items
            .iter()
            .map(|i| (i.external_task_id.clone(), i.occurred_at, i.minutes))
            .collect::<Vec<_>>()
    );
    assert!(
        items
            .iter()
            .all(|i| i.tags.len() == 2 && i.foundation.is_none())
    );
}

/// The local days of `items` in `zone` and their minutes.
fn minutes_by_local_day(
    items: &[discovery_sync::entries::Item],
    zone: &discovery_sync::zone::Zone,
) -> Vec<(time::Date, i64)> {
    let mut days: Vec<(time::Date, i64)> = Vec::new();
    for item in items {
        let day = zone.to_local(item.occurred_at).unwrap().date();
        match days.last_mut() {
            Some((last, minutes)) if *last == day => *minutes += item.minutes,
            _ => days.push((day, item.minutes)),
        }
    }
    days
}

#[test]
fn a_26_hour_toggl_entry_is_cut_at_the_persons_midnight_in_berlin_and_in_kolkata() {
    use discovery_sync::import::{CsvOptions, toggl};
    use discovery_sync::items::items_in;
    use discovery_sync::zone::Zone;
    use time::macros::date;
    let csv = "User,Email,Project,Description,Start date,Start time,Duration,Tags\n\
               Ada,ada@example.org,Web,Long,2026-06-12,10:00:00,26:00:00,\n";
    for name in ["Europe/Berlin", "Asia/Kolkata"] {
        let zone = Zone::named(name).unwrap();
        let options = CsvOptions {
            zone: zone.clone(),
            ..CsvOptions::new(time::macros::offset!(UTC))
        };
        let parsed = toggl::parse(csv.as_bytes(), options).unwrap();
        let (items, split) = items_in(&parsed.entries, &zone);
        assert_eq!(1, split, "{name}");
        // 10:00 to midnight, then midnight to 12:00, each on its own local day.
        assert_eq!(
            vec![(date!(2026 - 06 - 12), 840), (date!(2026 - 06 - 13), 720)],
            minutes_by_local_day(&items, &zone),
            "{name}"
        );
        let id = &parsed.entries[0].external_task_id;
        assert_eq!(
            vec![id.clone(), format!("{id}:d1")],
            items
                .iter()
                .map(|i| i.external_task_id.clone())
                .collect::<Vec<_>>()
        );
        assert_eq!(
            zone.to_utc(date!(2026 - 06 - 13).midnight()).unwrap(),
            items[1].occurred_at,
            "{name}"
        );
    }
}
