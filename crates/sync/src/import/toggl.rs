//! Toggl Track's detailed report, exported as CSV (Reports → Detailed → Export → CSV). Its
//! header:
//!
//! ```text
//! User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (USD)
//! ```
//!
//! (`Amount ()` when the workspace has no currency). Columns are found by name, so their order
//! and extra columns do not matter; `Start date`, `Start time` and `Duration` are required.
//! Dates are `YYYY-MM-DD`, times `HH:MM:SS`, durations `HH:MM:SS`; `Tags` holds the entry's
//! tags separated by commas in one cell (`"design, review"`).
//!
//! Toggl writes local times in the exporting person's time zone (their profile setting)
//! without an offset: pass that zone in [`CsvOptions::zone`]. Ids start with
//! `toggl:`; see [the module](super) for how they are made.

use std::io::Read;

use super::{CsvFormat, CsvOptions, ImportError, Parsed, parse_csv};

/// The prefix of every id this importer makes.
pub const ID_PREFIX: &str = "toggl:";

/// The column names Toggl uses.
pub(crate) const FORMAT: CsvFormat = CsvFormat {
    source: "toggl",
    start_date: "Start date",
    start_time: "Start time",
    duration: "Duration",
    email: "Email",
    user: "User",
    project: "Project",
    description: "Description",
    end_date: "End date",
    end_time: "End time",
    tags: "Tags",
};

/// Reads a Toggl Track detailed report CSV.
///
/// # Errors
/// [`ImportError::Header`] when a required column is missing; [`ImportError::Row`] for the
/// first malformed row in strict mode; [`ImportError::Read`] when the input cannot be read.
pub fn parse<R: Read>(input: R, options: CsvOptions) -> Result<Parsed, ImportError> {
    parse_csv(input, &FORMAT, options)
}
