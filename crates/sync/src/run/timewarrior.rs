//! `discovery-sync timewarrior`: `timew export` (or a saved export) to the service, mapped by
//! a mapping file or left to the server's rules; an interval longer than a day cut at the
//! person's midnights (`--timezone`, else the account's zone).

use std::path::Path;

use serde_json::{Value, json};

use super::{client_for, deliver};
use crate::Failure;
use crate::account::zone_in_use;
use crate::client::Totals;
use crate::entries::{self, Plan};
use crate::mapping::Mapping;
use crate::timew::{self, Source};
use crate::zone::Zone;

/// Who decides the foundation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classify<'a> {
    /// The mapping file at this path; no tags are sent.
    MappingFile(&'a Path),
    /// The server's rules: every closed interval is sent without a foundation, with its tags.
    ServerRules,
}

/// The counts of a run, for the summary line.
#[derive(Debug, Default)]
pub struct Report {
    pub plan: Plan,
    pub totals: Totals,
    pub dry_run: bool,
}

impl Report {
    /// The summary line's fields.
    #[must_use]
    pub fn json(&self) -> Value {
        json!({
            "dry_run": self.dry_run,
            "intervals": self.plan.intervals,
            "open": self.plan.open,
            "skipped": self.plan.skipped,
            "split": self.plan.split,
            "warnings": self.plan.warnings.len(),
            "entries": self.plan.items.len(),
            "batches": self.totals.batches,
            "created": self.totals.created,
            "updated": self.totals.updated,
        })
    }
}

/// Reads the intervals, plans the entries and prints or sends them: the counts, and the
/// failure that stopped the run if one did.
pub fn run(
    classify: Classify<'_>,
    source: &Source<'_>,
    url: &str,
    dry_run: bool,
    timezone: Option<Zone>,
) -> (Report, Result<(), Failure>) {
    let mut report = Report {
        dry_run,
        ..Report::default()
    };
    let result = run_into(&mut report, classify, source, url, timezone);
    (report, result)
}

fn run_into(
    report: &mut Report,
    classify: Classify<'_>,
    source: &Source<'_>,
    url: &str,
    timezone: Option<Zone>,
) -> Result<(), Failure> {
    // Everything the user can get wrong is checked before timew runs or anything is sent.
    let mapping = match classify {
        Classify::MappingFile(path) => Some(Mapping::load(path)?),
        Classify::ServerRules => None,
    };
    let client = client_for(url, report.dry_run)?;
    let export = timew::read(source)?;
    let intervals = timew::parse_export(&export)?;
    // The person's zone changes only where an interval is cut at midnights: it is asked of
    // the service only then.
    let zone = if entries::any_cut(&intervals) {
        zone_in_use(timezone, url, report.dry_run)
    } else {
        timezone.unwrap_or(Zone::Fixed(time::UtcOffset::UTC))
    };
    report.plan = match &mapping {
        Some(mapping) => entries::plan_in(&intervals, mapping, &zone),
        None => entries::plan_for_rules_in(&intervals, &zone),
    };
    for warning in &report.plan.warnings {
        eprintln!("warning {warning}");
    }
    let (totals, result) = deliver(&report.plan.items, client.as_ref());
    report.totals = totals;
    result
}
