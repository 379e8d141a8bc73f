//! `discovery-sync timewarrior`: `timew export` (or a saved export) to the service, mapped by
//! a mapping file or left to the server's rules.

use std::path::Path;

use serde_json::{Value, json};

use super::{client_for, deliver};
use crate::Failure;
use crate::client::Totals;
use crate::entries::{self, Plan};
use crate::mapping::Mapping;
use crate::timew::{self, Source};

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
) -> (Report, Result<(), Failure>) {
    let mut report = Report {
        dry_run,
        ..Report::default()
    };
    let result = run_into(&mut report, classify, source, url);
    (report, result)
}

fn run_into(
    report: &mut Report,
    classify: Classify<'_>,
    source: &Source<'_>,
    url: &str,
) -> Result<(), Failure> {
    // Everything the user can get wrong is checked before timew runs or anything is sent.
    let mapping = match classify {
        Classify::MappingFile(path) => Some(Mapping::load(path)?),
        Classify::ServerRules => None,
    };
    let client = client_for(url, report.dry_run)?;
    let export = timew::read(source)?;
    let intervals = timew::parse_export(&export)?;
    report.plan = match &mapping {
        Some(mapping) => entries::plan(&intervals, mapping),
        None => entries::plan_for_rules(&intervals),
    };
    for warning in &report.plan.warnings {
        eprintln!("warning {warning}");
    }
    let (totals, result) = deliver(&report.plan.items, client.as_ref());
    report.totals = totals;
    result
}
