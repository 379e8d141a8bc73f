//! Corpora of people, in the shared format (`personas.json` with each person's seven answers,
//! `turns.tsv` with labelled messages to the coach): each person's profile made by the offline
//! engine, each turn played against a fresh copy of it, and both scored exactly as the corpus's
//! README says, so a corpus written by others measures the engine the same way here as its own
//! scripts do over HTTP.

pub mod corrections;
pub mod mirrors;
pub mod rules;

use std::collections::BTreeMap;
use std::path::Path;

use adapters_llm::OfflineEngine;
use domain::discovery::{ExtractionDraft, ExtractionInput};
use domain::ids::UserId;
use domain::profile::Profile;
use serde::Deserialize;

/// One person of a corpus: their seven answers, by step ("1" to "7").
#[derive(Debug, Clone, Deserialize)]
pub struct Person {
    pub answers: BTreeMap<String, String>,
}

/// One labelled turn of `turns.tsv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub person: String,
    /// The field a careful coach would change, `-` for none, `?` where it asks.
    pub field: String,
    /// replace, add, remove, none or ask.
    pub effect: String,
    pub key_phrase: String,
    pub message: String,
}

/// A corpus directory.
#[derive(Debug, Clone)]
pub struct People {
    pub name: String,
    pub persons: BTreeMap<String, Person>,
    pub turns: Vec<Turn>,
}

/// Whether `dir` holds a corpus of people (rather than the project's own phrasing corpus).
#[must_use]
pub fn is_people(dir: &Path) -> bool {
    dir.join("personas.json").is_file()
}

/// Reads `dir/personas.json` and, when present, `dir/turns.tsv`.
///
/// # Errors
/// A message naming the file when one cannot be read or parsed.
pub fn load(dir: &Path) -> Result<People, String> {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    let persons: BTreeMap<String, Person> =
        serde_json::from_str(&read("personas.json")?).map_err(|e| format!("personas.json: {e}"))?;
    let turns = if dir.join("turns.tsv").is_file() {
        parse_turns(&read("turns.tsv")?)?
    } else {
        Vec::new()
    };
    if let Some(t) = turns.iter().find(|t| !persons.contains_key(&t.person)) {
        return Err(format!(
            "turns.tsv: no person {:?} in personas.json",
            t.person
        ));
    }
    let name = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Ok(People {
        name,
        persons,
        turns,
    })
}

fn parse_turns(text: &str) -> Result<Vec<Turn>, String> {
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let cells: Vec<&str> = line.splitn(5, '\t').collect();
            match cells[..] {
                [person, field, effect, key_phrase, message] => Ok(Turn {
                    person: person.to_owned(),
                    field: field.to_owned(),
                    effect: effect.to_owned(),
                    key_phrase: key_phrase.to_owned(),
                    message: message.to_owned(),
                }),
                _ => Err(format!(
                    "turns.tsv line {}: five tab-separated cells expected",
                    i + 2
                )),
            }
        })
        .collect()
}

impl Person {
    /// The answers as the service reads them (an empty goal answer is no goal).
    #[must_use]
    pub fn input(&self) -> ExtractionInput {
        let at = |step: &str| self.answers.get(step).cloned().unwrap_or_default();
        let goal = |step: &str| Some(at(step)).filter(|g| !g.trim().is_empty());
        ExtractionInput {
            love: at("1"),
            strength: at("2"),
            mission: at("3"),
            vocation: at("4"),
            drives: at("5"),
            near_term_goal: goal("6"),
            long_term_goal: goal("7"),
        }
    }

    /// The profile the offline engine makes of this person, through the service's guards.
    ///
    /// # Errors
    /// A message when the engine's draft does not pass the guards.
    pub fn profile(&self) -> Result<Profile, String> {
        let input = self.input();
        let draft = OfflineEngine::new()
            .extraction_draft(&input)
            .map_err(|e| e.to_string())?;
        let raw = serde_json::to_string(&draft).map_err(|e| e.to_string())?;
        let extraction = ExtractionDraft::parse(&raw)
            .map_err(|e| e.to_string())?
            .guard(&input)
            .map_err(|e| e.to_string())?;
        Ok(Profile::extracted(UserId::new(), extraction, time::OffsetDateTime::UNIX_EPOCH).profile)
    }
}
