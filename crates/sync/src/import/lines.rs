//! Physical line numbers of CSV records, counted from the bytes themselves. The csv crate's
//! `Position::line` comes out one too low in CRLF files (how Toggl exports and Excel saves), so
//! the reader is fed through [`Newlines`], which notes where each line feed is, and a record's
//! line is the number of line feeds before its first byte, plus one. Only the line feeds the
//! reader has buffered ahead of the record being read are kept: memory stays bounded by its
//! buffer, not by the file.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Read;
use std::rc::Rc;

/// The line feeds seen and not yet passed.
#[derive(Debug, Default)]
pub(crate) struct LineIndex {
    passed: usize,
    ahead: VecDeque<u64>,
}

impl LineIndex {
    /// The 1-based line of a record whose position is `offset`. Offsets must come in order
    /// (records do). A line feed *at* the offset counts as passed: in a CRLF file the reader
    /// ends a record at its `\r` and puts the next record's start on the `\n`, and a record's
    /// first byte is never a line feed otherwise (a line feed before it is a blank line, which
    /// the reader skips).
    pub(crate) fn line_at(&mut self, offset: u64) -> usize {
        while self.ahead.front().is_some_and(|nl| *nl <= offset) {
            self.ahead.pop_front();
            self.passed += 1;
        }
        self.passed + 1
    }
}

/// A reader that notes the offset of every line feed it hands on.
#[derive(Debug)]
pub(crate) struct Newlines<R> {
    inner: R,
    offset: u64,
    index: Rc<RefCell<LineIndex>>,
}

impl<R: Read> Newlines<R> {
    /// `inner`, and the index its bytes fill.
    pub(crate) fn new(inner: R) -> (Self, Rc<RefCell<LineIndex>>) {
        let index = Rc::new(RefCell::new(LineIndex::default()));
        let reader = Self {
            inner,
            offset: 0,
            index: Rc::clone(&index),
        };
        (reader, index)
    }
}

impl<R: Read> Read for Newlines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut index = self.index.borrow_mut();
        for (i, byte) in buf.iter().take(n).enumerate() {
            if *byte == b'\n' {
                index.ahead.push_back(self.offset + i as u64);
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}
