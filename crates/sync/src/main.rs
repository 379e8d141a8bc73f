//! `discovery-sync`: sends a time tracker's entries to the Discovery Service as task mappings.
//! One JSON summary line on stdout; exit code 0 ok, 1 failed, 2 bad usage.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use discovery_sync::Failure;
use discovery_sync::client::{self, Client, Totals};
use discovery_sync::entries::{self, Plan};
use discovery_sync::mapping::Mapping;
use discovery_sync::timew::{self, Source};
use serde_json::{Value, json};

/// The variable holding the API key. Never a flag: flags show up in `ps` and shell history.
const API_KEY_ENV: &str = "DISCOVERY_API_KEY";

/// Sends time-tracker entries to the Discovery Service as task mappings.
#[derive(Debug, Parser)]
#[command(name = "discovery-sync", version, about)]
struct Cli {
    #[command(subcommand)]
    tracker: Tracker,
}

#[derive(Debug, Subcommand)]
enum Tracker {
    /// Timewarrior: `timew export [RANGE...]` (or a saved export) to the service, idempotently.
    ///
    /// The API key is read from DISCOVERY_API_KEY.
    Timewarrior {
        /// The TOML file mapping tags to foundations (ordered rules, first match wins).
        #[arg(long, value_name = "FILE")]
        mapping: PathBuf,
        /// Read a saved `timew export` from FILE (`-` = stdin) instead of running timew.
        #[arg(long, value_name = "FILE|-")]
        input: Option<PathBuf>,
        /// The service's base URL.
        #[arg(long, env = "DISCOVERY_URL", default_value = "http://127.0.0.1:8011")]
        url: String,
        /// The timew program to run.
        #[arg(long, value_name = "PROGRAM", default_value = "timew")]
        timew: String,
        /// Print the exact request bodies, one per line, and send nothing.
        #[arg(long)]
        dry_run: bool,
        /// The range given to `timew export` (e.g. `:week`, or `from 2026-11-01 to today`);
        /// none = everything. Not allowed with --input.
        #[arg(value_name = "RANGE", conflicts_with = "input")]
        range: Vec<String>,
    },
}

/// The counts of a run, for the summary line.
#[derive(Debug, Default)]
struct Report {
    plan: Plan,
    totals: Totals,
    dry_run: bool,
}

impl Report {
    fn json(&self) -> Value {
        json!({
            "dry_run": self.dry_run,
            "intervals": self.plan.intervals,
            "open": self.plan.open,
            "skipped": self.plan.skipped,
            "split": self.plan.split,
            "entries": self.plan.items.len(),
            "batches": self.totals.batches,
            "created": self.totals.created,
            "updated": self.totals.updated,
        })
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let _ = e.print();
            // clap's first line ("error: unexpected argument '--bogus' found"), without the prefix.
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or_default();
            let message = first.trim_start_matches("error: ").to_owned();
            return finish(&Err((Failure::Usage(message), Report::default())));
        }
    };
    let outcome = match cli.tracker {
        Tracker::Timewarrior {
            mapping,
            input,
            url,
            timew,
            dry_run,
            range,
        } => {
            let source = match input.as_deref() {
                Some(path) if path.as_os_str() == "-" => Source::Stdin,
                Some(path) => Source::File(path),
                None => Source::Run {
                    program: &timew,
                    range: &range,
                },
            };
            timewarrior(&mapping, &source, &url, dry_run)
        }
    };
    finish(&outcome)
}

/// Prints the summary line and picks the exit code.
fn finish(outcome: &Result<Report, (Failure, Report)>) -> ExitCode {
    let (line, code) = match outcome {
        Ok(report) => {
            let mut line = json!({"command": "timewarrior", "ok": true});
            merge(&mut line, report.json());
            (line, 0)
        }
        Err((failure, report)) => {
            let mut line = json!({"command": "timewarrior", "ok": false});
            merge(&mut line, report.json());
            line["error"] = json!(failure.message());
            (line, failure.exit_code())
        }
    };
    println!("{line}");
    ExitCode::from(code)
}

fn merge(into: &mut Value, from: Value) {
    if let (Some(into), Value::Object(from)) = (into.as_object_mut(), from) {
        into.extend(from);
    }
}

fn timewarrior(
    mapping: &std::path::Path,
    source: &Source<'_>,
    url: &str,
    dry_run: bool,
) -> Result<Report, (Failure, Report)> {
    let mut report = Report {
        dry_run,
        ..Report::default()
    };
    // Everything the user can get wrong is checked before timew runs or anything is sent.
    let mapping = Mapping::load(mapping).map_err(|e| (e, Report::default()))?;
    let client = if dry_run {
        None
    } else {
        let key = std::env::var(API_KEY_ENV)
            .ok()
            .filter(|k| !k.trim().is_empty())
            .ok_or_else(|| {
                (
                    Failure::Usage(format!(
                        "{API_KEY_ENV} is not set (the API key to send with)"
                    )),
                    Report::default(),
                )
            })?;
        Some(Client::new(url, key.trim()).map_err(|e| (e, Report::default()))?)
    };
    let export = timew::read(source).map_err(|e| (e, Report::default()))?;
    let intervals = timew::parse_export(&export).map_err(|e| (e, Report::default()))?;
    report.plan = entries::plan(&intervals, &mapping);
    let bodies = client::batch_bodies(&report.plan.items).map_err(|e| (e, Report::default()))?;
    match client {
        None => {
            for body in &bodies {
                println!("{body}");
            }
            Ok(report)
        }
        Some(client) => match client.send(&bodies) {
            Ok(totals) => {
                report.totals = totals;
                Ok(report)
            }
            Err((failure, totals)) => {
                report.totals = totals;
                Err((failure, report))
            }
        },
    }
}
