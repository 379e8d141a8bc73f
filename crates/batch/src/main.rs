//! `discovery-batch`: one scheduled job per run (`checkins`, `deliver`, `prune-activity`,
//! `migrate`) or operator task (`backup`, `verify`), one JSON summary line on stdout, a
//! non-zero exit code on failure.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod config;
mod jobs;

/// Scheduled jobs of the Discovery Service.
#[derive(Debug, Parser)]
#[command(name = "discovery-batch", version, about)]
struct Cli {
    #[command(subcommand)]
    job: Job,
}

#[derive(Debug, Subcommand)]
enum Job {
    /// Writes the due check-ins for every user (safe to run twice, or on two hosts at once).
    Checkins,
    /// Attempts every due delivery of the outbox once (webhooks and e-mails); prints how many
    /// were sent, failed and are still pending.
    Deliver,
    /// Deletes activity-log entries older than the retention.
    PruneActivity {
        /// Keep this many days (default: ACTIVITY_RETENTION_DAYS, else 90).
        #[arg(long)]
        days: Option<u32>,
    },
    /// Applies pending database migrations.
    Migrate,
    /// Copies the live SQLite database into a new file while the service writes (PostgreSQL:
    /// use pg_dump); prints rows per table and the time taken.
    Backup {
        /// The new backup file (never overwritten).
        #[arg(long)]
        to: PathBuf,
    },
    /// Checks a SQLite backup file: integrity, migration version, rows per table.
    Verify {
        /// The backup file.
        file: PathBuf,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let (name, outcome) = match cli.job {
        Job::Checkins => ("checkins", jobs::checkins::run().await),
        Job::Deliver => ("deliver", jobs::deliver::run().await),
        Job::PruneActivity { days } => ("prune-activity", jobs::prune_activity::run(days).await),
        Job::Migrate => ("migrate", jobs::migrate::run().await),
        Job::Backup { to } => ("backup", jobs::backup::run(to).await),
        Job::Verify { file } => ("verify", jobs::verify::run(file).await),
    };
    match outcome {
        Ok(report) => {
            let mut line = serde_json::json!({"job": name, "ok": true, "report": report});
            // `deliver` also says its counts at the top level, as docs/api.md spells its summary
            // (`{"ok": true, "sent", "failed", "pending"}`).
            if let (Some(line), Some(counts)) = (line.as_object_mut(), report.as_object())
                && name == "deliver"
            {
                line.extend(counts.clone());
            }
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!(
                "{}",
                serde_json::json!({"job": name, "ok": false, "error": config::redact(&format!("{e:#}"))})
            );
            ExitCode::FAILURE
        }
    }
}
