//! `discovery-sync`: sends a time tracker's entries to the Discovery Service as task mappings.
//! One JSON summary line on stdout, errors in words on stderr; the exit codes are
//! [`discovery_sync::summary::EXIT_CODES`]. This file only reads the command line and hands it
//! to [`discovery_sync::run`].

use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use discovery_sync::cli::{Cli, ExportImport, Tracker, Upload};
use discovery_sync::import::activitywatch::ExportOptions;
use discovery_sync::run::import::{self, Format};
use discovery_sync::run::live::{self, Live};
use discovery_sync::run::timewarrior::{self, Classify};
use discovery_sync::summary::{finish, tell};
use discovery_sync::timew::Source;
use discovery_sync::zone::Zone;
use discovery_sync::{Failure, account};
use serde_json::{Value, json};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => return ExitCode::from(bad_usage(&e)),
    };
    let (command, fields, result) = match cli.tracker {
        Tracker::Timewarrior {
            mapping,
            server_rules: _,
            input,
            url,
            timew,
            dry_run,
            timezone,
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
            // clap lets exactly one of --mapping and --server-rules through.
            let classify = mapping
                .as_deref()
                .map_or(Classify::ServerRules, Classify::MappingFile);
            let (report, result) = timewarrior::run(classify, &source, &url, dry_run, timezone);
            ("timewarrior", report.json(), result)
        }
        Tracker::Toggl(args) => {
            let zone = zone_in_use(args.given_zone(), &args.upload);
            import(Format::Toggl(args.options(zone)), &args.csv, &args.upload)
        }
        Tracker::Clockify(args) => {
            let zone = zone_in_use(args.given_zone(), &args.upload);
            import(
                Format::Clockify(args.options(zone)),
                &args.csv,
                &args.upload,
            )
        }
        Tracker::ActivityWatch(args) => activitywatch(&args),
        Tracker::Ics(args) => {
            let zone = zone_in_use(args.given_zone(), &args.upload);
            match args.options(time::OffsetDateTime::now_utc(), zone) {
                Ok(options) => import(Format::Ics(options), &args.file, &args.upload),
                Err(message) => ("ics", json!({}), Err(Failure::Usage(message))),
            }
        }
    };
    let skipped_rows = match command {
        // Timewarrior's skipped intervals are those the mapping says to skip: not malformed.
        "timewarrior" => 0,
        _ => fields["skipped"]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
    };
    let failure = result.err();
    if let Some(failure) = &failure {
        tell(failure);
    }
    ExitCode::from(finish(
        Some(command),
        &fields,
        skipped_rows,
        failure.as_ref(),
    ))
}

/// A command line clap refused: its message on stderr as clap prints it, and the summary line
/// with the message up to its usage line ("error: the following required arguments were not
/// provided: --csv <FILE>"), without the prefix, on one line. Returns the exit code (2).
fn bad_usage(e: &clap::Error) -> u8 {
    let _ = e.print();
    let rendered = e.render().to_string();
    let message = rendered
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_owned();
    let command = std::env::args()
        .nth(1)
        .filter(|c| Cli::command().find_subcommand(c).is_some());
    let failure = Failure::Usage(message);
    finish(command.as_deref(), &json!({}), 0, Some(&failure))
}

/// An ActivityWatch export file, or the live server: clap lets exactly one of `--export` and
/// `--server` through.
fn activitywatch(args: &ExportImport) -> (&'static str, Value, Result<(), Failure>) {
    let zone = zone_in_use(args.timezone.clone(), &args.upload);
    if let Some(export) = &args.export {
        let options = ExportOptions {
            strict: args.upload.strict,
            zone: Some(zone),
        };
        return import(Format::ActivityWatch(options), export, &args.upload);
    }
    let live = Live {
        server: args.server.clone().unwrap_or_default(),
        state: args.state.clone(),
        since: match args.since.map(|day| zone.to_utc(day.midnight())) {
            Some(Err(message)) => {
                return ("activitywatch", json!({}), Err(Failure::Usage(message)));
            }
            since => since.and_then(Result::ok),
        },
        reread: time::Duration::hours(i64::from(args.reread_hours)),
        zone,
        strict: args.upload.strict,
        dry_run: args.upload.dry_run,
        url: args.upload.url.clone(),
    };
    let (report, result) = live::run(&live, time::OffsetDateTime::now_utc());
    ("activitywatch", report.json(), result)
}

/// The zone in use for an import with `upload`'s flags: the given one, else the account's,
/// else UTC with a warning.
fn zone_in_use(given: Option<Zone>, upload: &Upload) -> Zone {
    account::zone_in_use(given, &upload.url, upload.dry_run)
}

/// One import run: its name, its summary fields and how it ended.
fn import(
    format: Format,
    file: &std::path::Path,
    upload: &Upload,
) -> (&'static str, Value, Result<(), Failure>) {
    let command = format.command();
    let (report, result) = import::run(format, file, upload);
    (command, report.json(), result)
}
