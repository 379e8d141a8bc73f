//! The progress bar of an upload: entries sent so far, on stderr, and only when stderr is a
//! terminal (a pipe or a log file gets no escape codes; stdout keeps only the summary line).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over a number of entries, or nothing when stderr is not a terminal.
#[derive(Debug)]
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar for `total` entries.
    #[must_use]
    pub fn entries(total: usize) -> Self {
        if total == 0 || !std::io::stderr().is_terminal() {
            return Self(None);
        }
        let bar = ProgressBar::with_draw_target(
            Some(u64::try_from(total).unwrap_or(u64::MAX)),
            ProgressDrawTarget::stderr(),
        );
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} entries sent ({elapsed})")
        {
            bar.set_style(style);
        }
        Self(Some(bar))
    }

    /// `n` more entries were sent.
    pub fn sent(&self, n: usize) {
        if let Some(bar) = &self.0 {
            bar.inc(u64::try_from(n).unwrap_or(u64::MAX));
        }
    }

    /// Removes the bar from the terminal: the summary line says how it went.
    pub fn finish(self) {
        if let Some(bar) = self.0 {
            bar.finish_and_clear();
        }
    }
}
