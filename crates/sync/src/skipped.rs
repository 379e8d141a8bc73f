//! What an import may skip before it fails (`--max-skipped`), and the skipped rows written out
//! for whoever fixes them (`--skipped-file`).

use std::path::Path;

use crate::Failure;

/// The most skipped rows a run accepts: a count, or a share of the rows read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MaxSkipped {
    Count(usize),
    /// Percent of the rows read, 0-100.
    Percent(f64),
}

impl MaxSkipped {
    /// Without `--max-skipped`: none with `--strict`, else 5% of the rows.
    #[must_use]
    pub fn default_for(strict: bool) -> Self {
        if strict {
            Self::Count(0)
        } else {
            Self::Percent(5.0)
        }
    }

    /// `12` (rows) or `2.5%` (of the rows read).
    ///
    /// # Errors
    /// A message naming the forms accepted.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "bad --max-skipped {text:?} (expected a number of rows, e.g. 10, or a share, e.g. 5%)"
            )
        };
        let text = text.trim();
        match text.strip_suffix('%') {
            Some(percent) => {
                let p: f64 = percent.trim().parse().map_err(|_| bad())?;
                if !(0.0..=100.0).contains(&p) {
                    return Err(bad());
                }
                Ok(Self::Percent(p))
            }
            None => text.parse().map(Self::Count).map_err(|_| bad()),
        }
    }

    /// Whether `skipped` of `rows` is more than this allows.
    #[must_use]
    pub fn exceeded_by(self, skipped: usize, rows: usize) -> bool {
        match self {
            Self::Count(n) => skipped > n,
            // Counts of rows are far below 2^52: the conversion is exact.
            #[allow(clippy::cast_precision_loss)]
            Self::Percent(p) => skipped as f64 * 100.0 > rows as f64 * p,
        }
    }

    /// `10` or `5%`, as given.
    #[must_use]
    pub fn describe(self) -> String {
        match self {
            Self::Count(n) => n.to_string(),
            Self::Percent(p) => format!("{p}%"),
        }
    }
}

/// Writes `skipped` (`(where, why)`) to `path` as CSV with the header `where,reason`.
///
/// # Errors
/// [`Failure::Failed`] naming the file when it cannot be written.
pub fn write_file(path: &Path, skipped: &[(String, String)]) -> Result<(), Failure> {
    let fail = |e: &dyn std::fmt::Display| {
        Failure::Failed(format!("cannot write {}: {e}", path.display()))
    };
    let mut writer = csv::Writer::from_path(path).map_err(|e| fail(&e))?;
    writer
        .write_record(["where", "reason"])
        .map_err(|e| fail(&e))?;
    for (at, why) in skipped {
        writer.write_record([at, why]).map_err(|e| fail(&e))?;
    }
    writer.flush().map_err(|e| fail(&e))
}
