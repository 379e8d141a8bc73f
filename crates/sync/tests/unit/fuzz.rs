//! A bounded mutation fuzz of every parser (issue 43): each fixture, cut, flipped, spliced and
//! repeated a few hundred times by a seeded generator, is read without a panic (an error or
//! skipped rows are fine answers; a crash is not). Seeded, so a failure is repeatable; the
//! seed and the input's length are in the message.

use discovery_sync::import::activitywatch::{self, ExportOptions};
use discovery_sync::import::ics::{self, IcsOptions};
use discovery_sync::import::{CsvOptions, clockify, toggl};
use discovery_sync::zone::Zone;
use time::macros::{datetime, offset};

/// Mutations per fixture.
const ROUNDS: u64 = 300;

/// xorshift64*: enough to scatter mutations, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap()
    }
}

/// Bytes that break parsers: delimiters, quotes, line ends, signs, digits, non-ASCII.
const NASTY: &[&[u8]] = &[
    b"\"",
    b",",
    b";",
    b"\n",
    b"\r\n",
    b":",
    b"-",
    b"9999999999999",
    b"1e300",
    b"\xff",
    b"\xc3\xa9",
    b"{",
    b"}",
    b"[",
    b"BEGIN:VALARM\r\n",
    b"T",
    b"Z",
    b"0",
    b"/",
    b".",
];

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(5) {
            0 => out.truncate(at),
            1 if at < out.len() => out[at] ^= 1 << rng.below(8),
            2 => {
                let nasty = NASTY[rng.below(NASTY.len())];
                out.splice(at..at, nasty.iter().copied());
            }
            3 if at < out.len() => {
                let end = (at + rng.below(64)).min(out.len());
                let piece = out[at..end].to_vec();
                out.splice(at..at, piece);
            }
            _ => {
                let end = (at + rng.below(16)).min(out.len());
                out.drain(at..end);
            }
        }
    }
    out
}

/// Every mutation of `fixture` read by `read`, which must return (whatever it returns).
fn fuzz(seed: u64, fixture: &str, read: impl Fn(&[u8])) {
    let mut rng = Rng(seed);
    for round in 0..ROUNDS {
        let input = mutate(&mut rng, fixture.as_bytes());
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&input)));
        assert!(
            result.is_ok(),
            "seed {seed}, round {round}: a panic on {} bytes: {:?}",
            input.len(),
            String::from_utf8_lossy(&input)
        );
    }
}

#[test]
fn the_csv_parsers_survive_mutated_reports() {
    fuzz(
        0x7061_7273,
        include_str!("../fixtures/import/toggl_detailed.csv"),
        |b| {
            let _ = toggl::parse(b, CsvOptions::new(offset!(+1)));
        },
    );
    fuzz(
        0x636c_6f63,
        include_str!("../fixtures/import/clockify_detailed.csv"),
        |b| {
            let options = CsvOptions {
                zone: Zone::named("America/New_York").unwrap(),
                ..CsvOptions::new(offset!(UTC))
            };
            let _ = clockify::parse(b, options);
        },
    );
}

#[test]
fn the_activitywatch_parser_survives_mutated_exports() {
    fuzz(
        0x6177_6177,
        include_str!("../fixtures/import/activitywatch_export.json"),
        |b| {
            let options = ExportOptions {
                zone: Some(Zone::named("Asia/Kolkata").unwrap()),
                ..ExportOptions::default()
            };
            let _ = activitywatch::parse(b, options);
        },
    );
}

#[test]
fn the_calendar_parser_survives_mutated_calendars() {
    fuzz(
        0x6963_7321,
        include_str!("../fixtures/import/calendar.ics"),
        |b| {
            let Ok(text) = std::str::from_utf8(b) else {
                return;
            };
            let options = IcsOptions {
                zone: Zone::named("Europe/Berlin").unwrap(),
                strict: false,
                from: datetime!(2026-01-01 00:00 UTC),
                to: datetime!(2027-01-01 00:00 UTC),
                owner: None,
            };
            let _ = ics::parse(text, &options);
        },
    );
}

#[test]
fn the_timewarrior_export_parser_and_the_plan_survive_mutated_exports() {
    let export = r#"[{"id":2,"start":"20261120T080000Z","end":"20261120T093000Z","tags":["dev","client:acme"]},
{"id":1,"start":"20261121T220000Z","end":"20261123T010000Z","tags":["email"],"annotation":"x"},
{"id":3,"start":"20261124T080000Z","tags":["open"]}]"#;
    fuzz(0x7469_6d65, export, |b| {
        let Ok(text) = std::str::from_utf8(b) else {
            return;
        };
        if let Ok(intervals) = discovery_sync::timew::parse_export(text) {
            let _ = discovery_sync::entries::plan_for_rules(&intervals);
        }
    });
}
