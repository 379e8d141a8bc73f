//! Team exports: a detailed report of a workspace holds every member's rows, and one API key
//! holds one person's time. Whose rows are read is [`People`]; the people a file holds are
//! gathered by a [`Roster`] as its rows go by, so a file of several people read without
//! `--user` is refused naming them, before anything is sent.

use std::collections::BTreeMap;

use super::{Columns, ImportError};

/// Whose rows of a report to read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum People {
    /// Every row, whoever's (the parser alone, for tests and tools).
    #[default]
    All,
    /// Every row, but a file of more than one person is refused (the command line without
    /// `--user`).
    One,
    /// The rows whose e-mail or user name is this one (case-insensitive, trimmed); the others
    /// are counted and left out.
    Only(String),
}

/// At most this many people are named in a refusal; the rest are counted.
const NAMED: usize = 20;

/// The people seen so far, keyed by e-mail (user name when there is none), with their labels.
#[derive(Debug, Default)]
pub(crate) struct Roster {
    seen: BTreeMap<String, String>,
    taken: usize,
}

impl Roster {
    /// Whether `record`'s row is to be read under `people`; notes its person either way.
    pub(crate) fn takes(
        &mut self,
        people: &People,
        record: &csv::StringRecord,
        columns: &Columns,
    ) -> bool {
        let cell = |i: Option<usize>| i.and_then(|i| record.get(i)).map_or("", str::trim);
        let (name, email) = (cell(columns.user), cell(columns.email));
        let key = if email.is_empty() { name } else { email }.to_lowercase();
        self.seen.entry(key).or_insert_with(|| match (name, email) {
            ("", email) => email.to_owned(),
            (name, "") => name.to_owned(),
            (name, email) => format!("{name} <{email}>"),
        });
        let taken = match people {
            People::All | People::One => true,
            People::Only(want) => {
                let want = want.trim();
                want.eq_ignore_ascii_case(email) || want.to_lowercase() == name.to_lowercase()
            }
        };
        self.taken += usize::from(taken);
        taken
    }

    /// After the last row: a file of several people read with [`People::One`], or a `--user`
    /// no row has, is refused naming the people the file holds.
    pub(crate) fn check(&self, people: &People) -> Result<(), ImportError> {
        match people {
            People::One if self.seen.len() > 1 => Err(ImportError::People(format!(
                "the file holds the time of {} people ({}); import one person's rows with \
                 --user NAME or --user E-MAIL, under that person's API key",
                self.seen.len(),
                self.names()
            ))),
            People::Only(want) if self.taken == 0 && !self.seen.is_empty() => {
                Err(ImportError::People(format!(
                    "no row of the file is --user {want:?}'s; it holds the time of {}",
                    self.names()
                )))
            }
            _ => Ok(()),
        }
    }

    fn names(&self) -> String {
        let mut names: Vec<&str> = self.seen.values().take(NAMED).map(String::as_str).collect();
        let more = self.seen.len().saturating_sub(NAMED);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        names.sort_unstable();
        format!("{}{more}", names.join(", "))
    }
}
