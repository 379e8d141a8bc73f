//! The report: an aligned plain-text table, the failures by fixture and the `N passed, M failed`
//! line, or one JSON document with the same numbers and every fixture's result.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::fixture::Fixture;
use crate::run::{Observation, Outcome};
use crate::score::{Summary, Verdict, percent};
use crate::targets::Target;

/// One fixture's run.
#[derive(Debug)]
pub struct FixtureResult<'a> {
    pub fixture: &'a Fixture,
    pub observation: Observation,
    pub verdict: Verdict,
}

fn share(part: usize, whole: usize) -> String {
    percent(part, whole).map_or_else(
        || format!("n/a    ({part}/{whole})"),
        |p| format!("{p:.1}%  ({part}/{whole})"),
    )
}

fn millis(ms: Option<u128>) -> String {
    ms.map_or_else(|| "n/a".to_owned(), |ms| format!("{ms} ms"))
}

/// The metrics as `(metric, value)` rows, in the report's order.
#[must_use]
pub fn rows(s: &Summary) -> Vec<(&'static str, String)> {
    vec![
        ("fixtures run", s.fixtures.to_string()),
        ("first-try valid JSON", share(s.first_try_valid, s.fixtures)),
        ("retry", share(s.retried, s.fixtures)),
        ("502", share(s.unavailable_502, s.fixtures)),
        (
            "stated goals kept",
            share(s.stated_goals_kept, s.stated_goals),
        ),
        (
            "invented goals that reached storage",
            s.invented_goals.to_string(),
        ),
        (
            "goals dropped by the guard",
            format!(
                "{} ({} of them for a blank answer)",
                s.goals_dropped, s.goals_dropped_unstated
            ),
        ),
        (
            "verified sources",
            share(s.quotes_verified, s.quotes_offered),
        ),
        ("sources named twice", s.quotes_repeated.to_string()),
        ("triad agreement", share(s.triad_matched, s.triad_expected)),
        (
            "triad agreement, extractor's own type",
            share(s.triad_matched_proposed, s.triad_expected),
        ),
        (
            "types decided by the offline engine",
            s.types_decided_offline.to_string(),
        ),
        (
            "ungrounded sentences offered",
            s.ungrounded_offered.to_string(),
        ),
        (
            "fields replaced by the mirror",
            s.fields_replaced.to_string(),
        ),
        (
            "ungrounded sentences stored",
            s.ungrounded_stored.to_string(),
        ),
        (
            "stated goals taken from the mirror",
            s.goals_from_mirror.to_string(),
        ),
        ("latency p50", millis(s.latency_p50_ms)),
        ("latency p95", millis(s.latency_p95_ms)),
    ]
}

/// Rows as an aligned two-column table with a header.
#[must_use]
pub fn table(header: (&str, &str), rows: &[(&str, String)]) -> String {
    let width = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .chain([header.0.chars().count()])
        .max()
        .unwrap_or(0);
    let value_width = rows
        .iter()
        .map(|(_, v)| v.chars().count())
        .chain([header.1.chars().count()])
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let _ = writeln!(out, "{:<width$}  {}", header.0, header.1);
    let _ = writeln!(out, "{}  {}", "-".repeat(width), "-".repeat(value_width));
    for (k, v) in rows {
        let _ = writeln!(out, "{k:<width$}  {v}");
    }
    out
}

/// The plain-text report: title, metrics table, failures, optionally a per-fixture table, and
/// the final `N passed, M failed` line.
#[must_use]
pub fn text(
    engine: &str,
    source: &str,
    results: &[FixtureResult<'_>],
    s: &Summary,
    verbose: bool,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "discovery-eval: {engine}; fixtures from {source}");
    let _ = writeln!(out);
    out.push_str(&table(("metric", "value"), &rows(s)));
    let _ = writeln!(out);
    if verbose {
        out.push_str(&per_fixture(results));
        let _ = writeln!(out);
    }
    let failing: Vec<&FixtureResult<'_>> = results.iter().filter(|r| !r.verdict.passed()).collect();
    if failing.is_empty() {
        let _ = writeln!(out, "failures: none");
    } else {
        let _ = writeln!(out, "failures:");
        for r in failing {
            for failure in &r.verdict.failures {
                let _ = writeln!(out, "  {}: {failure}", r.fixture.name);
            }
        }
    }
    let _ = writeln!(out);
    let _ = write!(out, "{} passed, {} failed", s.passed, s.failed);
    out
}

/// One line per fixture: result, type, triad, goals stored, sources, attempts, time.
fn per_fixture(results: &[FixtureResult<'_>]) -> String {
    let width = results
        .iter()
        .map(|r| r.fixture.name.chars().count())
        .max()
        .unwrap_or(0)
        .max("fixture".len());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  result  type  triad (expected)  near  long  sources   tries  ms",
        "fixture"
    );
    for r in results {
        let o = &r.observation;
        let result = if r.verdict.passed() { "pass" } else { "FAIL" };
        let tries = if o.retried { 2 } else { 1 };
        let expected = r.fixture.expect.triad.map_or("-", |t| t.key());
        let goal = |g: Option<&str>| if g.is_some() { "kept" } else { "null" };
        let line = match &o.outcome {
            Outcome::Stored(s) => format!(
                "{:<4}  {:<16}  {:<4}  {:<4}  {:<8}",
                // "2<9": the type rule stored 2 where the extractor proposed 9.
                if s.proposed_type == s.enneagram_type {
                    s.enneagram_type.to_string()
                } else {
                    format!("{}<{}", s.enneagram_type, s.proposed_type)
                },
                format!("{} ({expected})", s.triad.key()),
                goal(s.near_term_goal()),
                goal(s.long_term_goal()),
                format!("{}/{}", s.sources.found, s.sources.offered),
            ),
            Outcome::Unavailable(_) | Outcome::Unusable(_) => format!(
                "{:<4}  {:<16}  {:<4}  {:<4}  {:<8}",
                "502",
                format!("- ({expected})"),
                "-",
                "-",
                "-"
            ),
        };
        let _ = writeln!(
            out,
            "{:<width$}  {result:<6}  {line}  {tries:<5}  {}",
            r.fixture.name,
            o.latency.as_millis()
        );
    }
    out
}

/// The done targets as a table: each bar, what the run measured, and whether it is met.
#[must_use]
pub fn targets_text(targets: &[Target], enforced: bool) -> String {
    let rows: Vec<(&str, String)> = targets
        .iter()
        .map(|t| {
            let verdict = if t.met { "met" } else { "NOT met" };
            let how = if !t.enforced {
                " (reported only)"
            } else if enforced {
                " (enforced)"
            } else {
                ""
            };
            (
                t.name,
                format!("{verdict}: {} (bar {}){how}", t.measured, t.bar),
            )
        })
        .collect();
    table(("target", "result"), &rows)
}

/// The machine-readable report.
#[must_use]
pub fn json(engine: &str, source: &str, results: &[FixtureResult<'_>], s: &Summary) -> Value {
    let fixtures: Vec<Value> = results
        .iter()
        .map(|r| {
            let o = &r.observation;
            let (outcome, reason, stored) = match &o.outcome {
                Outcome::Stored(s) => (
                    "stored",
                    None,
                    Some(json!({
                        "enneagram_type": s.enneagram_type,
                        "triad": s.triad.key(),
                        "proposed_type": s.proposed_type,
                        "type_note": s.grounding.type_decision.and_then(|d| d.note()),
                        "fields": s.fields.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect::<serde_json::Map<_, _>>(),
                        "quotes_offered": s.sources.offered,
                        "quotes_verified": s.sources.found,
                        "quotes_repeated": s.sources.repeated,
                        "quotes_not_found": s.sources.not_found,
                        "ungrounded_offered": s.grounding.ungrounded_offered,
                        "fields_replaced": s.grounding.replaced.iter().map(|f| f.name()).collect::<Vec<_>>(),
                        "ungrounded_stored": s.grounding.ungrounded_stored,
                        "goals_from_mirror": s.grounding.goals_from_mirror.iter().map(|f| f.name()).collect::<Vec<_>>(),
                        "draft_near_term_goal": s.draft_near_goal,
                        "draft_long_term_goal": s.draft_long_goal,
                    })),
                ),
                Outcome::Unavailable(reason) => ("unavailable", Some(reason), None),
                Outcome::Unusable(reason) => ("unusable", Some(reason), None),
            };
            json!({
                "name": r.fixture.name,
                "passed": r.verdict.passed(),
                "failures": r.verdict.failures,
                "outcome": outcome,
                "reason": reason,
                "first_try_valid": o.first_try_valid,
                "retried": o.retried,
                "rejections": o.rejections,
                "latency_ms": o.latency.as_millis(),
                "expected_triad": r.fixture.expect.triad.map(|t| t.key()),
                "verdict": r.verdict,
                "stored": stored,
            })
        })
        .collect();
    json!({
        "engine": engine,
        "fixtures_dir": source,
        "summary": s,
        "targets": crate::targets::judge(s),
        "fixtures": fixtures,
        "passed": s.passed,
        "failed": s.failed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_aligns_its_values_in_one_column() {
        let t = table(
            ("metric", "value"),
            &[("fixtures run", "3".into()), ("502", share(1, 3))],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "metric        value");
        assert_eq!(lines[1], "------------  ------------");
        assert_eq!(lines[2], "fixtures run  3");
        assert_eq!(lines[3], "502           33.3%  (1/3)");
    }

    #[test]
    fn every_metric_has_a_row_and_empty_ratios_say_so() {
        let s = Summary::default();
        let rows = rows(&s);
        assert_eq!(rows.len(), 18);
        assert_eq!(rows[4], ("stated goals kept", "n/a    (0/0)".to_owned()));
        assert_eq!(rows[14], ("ungrounded sentences stored", "0".to_owned()));
        assert_eq!(rows[16], ("latency p50", "n/a".to_owned()));
    }
}
