//! `discovery-eval`: reads the fixtures and the LLM settings, runs the evaluation and prints the
//! report; exits 1 when a fixture failed or a goal was invented, 2 on unusable input. With
//! `--enforce-targets` (a real model) it exits 1 when a done target is missed or a fixture broke
//! more than its expected triad: the triad is judged over all fixtures by its target.
//! `discovery-eval corrections` runs the offline coach over the correction corpus instead and
//! exits 1 when a set misses its bars.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use eval::engine::Engine;
use eval::fixture::Fixture;
use eval::report::FixtureResult;
use eval::score::Summary;
use eval::{corrections, engine, evaluate_with_progress, fixture, report, targets};

/// Scores the extractor chosen by LLM_PROVIDER / LLM_* on a fixture set of answer sets.
#[derive(Debug, Parser)]
#[command(name = "discovery-eval", version, about)]
struct Cli {
    /// The directory of `*.toml` fixtures.
    #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"))]
    fixtures: PathBuf,
    /// Run only the fixture of this name (its file name without `.toml`).
    #[arg(long, value_name = "NAME")]
    only: Option<String>,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
    /// Also write the JSON document to this file (the table still goes to stdout).
    #[arg(long, value_name = "FILE")]
    json_file: Option<PathBuf>,
    /// Exit 1 when an enforced done target is missed (0 ungrounded stored, verified sources
    /// >= 95%, stated goals kept >= 60%, triad agreement >= 70%); each is reported either way.
    #[arg(long)]
    enforce_targets: bool,
    /// Add a line per fixture to the table.
    #[arg(long, short, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs the offline reflection coach over the correction corpus and prints precision and
    /// recall per effect and kind, for the tuned and the held-out phrasings.
    Corrections {
        /// The corpus directory: the project's phrasings (profile.toml, tuned.toml,
        /// held-out.toml), or a corpus of people (personas.json and turns.tsv, scored as its
        /// README says).
        #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/corrections"))]
        corpus: PathBuf,
    },
    /// Checks the profiles the offline engine writes for a corpus of people (personas.json):
    /// mirrors, not copies, as the corpus README says.
    Mirrors {
        /// The corpus directory (personas.json).
        #[arg(long, value_name = "DIR")]
        corpus: PathBuf,
    },
}

/// `corrections` over a corpus of people: every miss (with `-v`), then the README's last line.
fn people_corrections(dir: &std::path::Path, verbose: bool) -> ExitCode {
    let played = eval::people::load(dir).and_then(|people| {
        let played = eval::people::corrections::play(&people)?;
        Ok(eval::people::corrections::report(
            &people.name,
            &played,
            verbose,
        ))
    });
    match played {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("discovery-eval: {e}");
            ExitCode::from(2)
        }
    }
}

/// `mirrors` over a corpus of people: every failed check, then the README's last line.
fn people_mirrors(dir: &std::path::Path) -> ExitCode {
    let checked = eval::people::load(dir)
        .and_then(|people| Ok((eval::people::mirrors::check(&people)?, people.persons.len())));
    match checked {
        Ok((checked, people)) => {
            for failure in &checked.failures {
                println!("FAIL {failure}");
            }
            println!(
                "mirror: {}/{} checks passed over {people} people",
                checked.passed, checked.total
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("discovery-eval: {e}");
            ExitCode::from(2)
        }
    }
}

fn corrections_report(dir: &std::path::Path, verbose: bool) -> ExitCode {
    let corpus = match corrections::corpus::load(dir) {
        Ok(corpus) => corpus,
        Err(e) => {
            eprintln!("discovery-eval: {e}");
            return ExitCode::from(2);
        }
    };
    let scores = corrections::evaluate(&corpus);
    println!(
        "{}",
        corrections::text(&dir.display().to_string(), &scores, verbose)
    );
    if scores.iter().all(corrections::Score::meets_the_bars) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Some(Command::Corrections { corpus }) if eval::people::is_people(corpus) => {
            return people_corrections(corpus, cli.verbose);
        }
        Some(Command::Corrections { corpus }) => return corrections_report(corpus, cli.verbose),
        Some(Command::Mirrors { corpus }) => return people_mirrors(corpus),
        None => {}
    }
    let _ = dotenvy::dotenv();
    let (engine, fixtures) = match engine_and_fixtures(&cli) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("discovery-eval: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("discovery-eval: the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let progress = progress_lines(fixtures.len());
    let (results, summary) =
        runtime.block_on(evaluate_with_progress(&engine.model, &fixtures, progress));
    report_and_judge(&cli, &engine.description, &results, &summary)
}

/// The engine from the environment and the fixtures to run (only the one named by `--only`,
/// when given); the error says why the input is unusable.
fn engine_and_fixtures(cli: &Cli) -> Result<(Engine, Vec<Fixture>), String> {
    let engine = engine::from_lookup(|name| std::env::var(name).ok())?;
    let mut fixtures = fixture::load_dir(&cli.fixtures).map_err(|e| e.to_string())?;
    if let Some(only) = &cli.only {
        fixtures.retain(|f| &f.name == only);
        if fixtures.is_empty() {
            return Err(format!(
                "no fixture named {only:?} in {}",
                cli.fixtures.display()
            ));
        }
    }
    Ok((engine, fixtures))
}

/// Prints `[done/total] name: pass (ms)` to stderr as each fixture is judged.
fn progress_lines<'a>(total: usize) -> impl FnMut(&FixtureResult<'a>) {
    let mut done = 0;
    move |r| {
        done += 1;
        let result = if r.verdict.passed() { "pass" } else { "FAIL" };
        eprintln!(
            "[{done}/{total}] {}: {result} ({} ms)",
            r.fixture.name,
            r.observation.latency.as_millis()
        );
    }
}

/// Writes the JSON document when asked, prints the report (the table and the targets, or the
/// document), and gives the exit code of the run.
fn report_and_judge(
    cli: &Cli,
    engine: &str,
    results: &[FixtureResult<'_>],
    summary: &Summary,
) -> ExitCode {
    let source = cli.fixtures.display().to_string();
    let document = report::json(engine, &source, results, summary);
    if let Some(path) = &cli.json_file
        && let Err(e) = std::fs::write(path, format!("{document:#}\n"))
    {
        eprintln!("discovery-eval: writing {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    let targets = targets::judge(summary);
    if cli.json {
        println!("{document:#}");
    } else {
        let table = report::text(engine, &source, results, summary, cli.verbose);
        println!("{table}");
        println!("{}", report::targets_text(&targets, cli.enforce_targets));
    }
    let failed = if cli.enforce_targets {
        summary.is_failure_beside_targets() || !targets::enforced_met(&targets)
    } else {
        summary.is_failure()
    };
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
