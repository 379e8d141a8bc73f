//! Clockify's detailed report, exported as CSV (Reports → Detailed → Export → Save as CSV). Its
//! header:
//!
//! ```text
//! Project,Client,Description,Task,User,Group,Email,Tags,Billable,Start Date,Start Time,End Date,End Time,Duration (h),Duration (decimal),Billable Rate (USD),Billable Amount (USD)
//! ```
//!
//! (`Group` and the rate columns depend on the plan and workspace settings). Columns are found
//! by name; `Start Date`, `Start Time` and `Duration (h)` are required. Clockify writes dates
//! and times in the person's chosen formats: dates `MM/DD/YYYY` by default (or `DD/MM/YYYY`,
//! `YYYY-MM-DD`, `DD.MM.YYYY`: [`CsvOptions::slash_dates`] says how to read slashes, or to take the order from the file), times
//! `hh:mm:ss AM|PM` in the 12-hour format or `HH:MM:SS` in the 24-hour one. `Duration (h)` is
//! written in the person's duration format (full `HH:MM:SS`, compact `H:MM` or decimal hours),
//! all read; for decimal hours the `End Date` and `End Time` give the exact length. `Duration
//! (decimal)` is not used. Tags are
//! separated by commas in one cell.
//!
//! Times are local to the exporting person's profile time zone, without an offset: pass that
//! zone in [`CsvOptions::zone`]. Ids start with `clockify:`; see [the
//! module](super) for how they are made.

use std::io::Read;

use super::{CsvFormat, CsvOptions, ImportError, Parsed, parse_csv};

/// The prefix of every id this importer makes.
pub const ID_PREFIX: &str = "clockify:";

/// The column names Clockify uses.
pub(crate) const FORMAT: CsvFormat = CsvFormat {
    source: "clockify",
    start_date: "Start Date",
    start_time: "Start Time",
    duration: "Duration (h)",
    email: "Email",
    user: "User",
    project: "Project",
    description: "Description",
    end_date: "End Date",
    end_time: "End Time",
    tags: "Tags",
};

/// Reads a Clockify detailed report CSV.
///
/// # Errors
/// [`ImportError::Header`] when a required column is missing; [`ImportError::Row`] for the
/// first malformed row in strict mode; [`ImportError::Read`] when the input cannot be read.
pub fn parse<R: Read>(input: R, options: CsvOptions) -> Result<Parsed, ImportError> {
    parse_csv(input, &FORMAT, options)
}
