//! Conversions at the storage edge: UTC instants to and from `TIMESTAMP` columns, and the
//! parsing of stored ids and keys back into domain types.

use std::str::FromStr;

use anyhow::anyhow;
use time::{OffsetDateTime, PrimitiveDateTime};

/// A UTC `TIMESTAMP` value, cut to the microseconds both backends keep.
pub(crate) fn to_db(at: OffsetDateTime) -> PrimitiveDateTime {
    let at = domain::clock::truncate_to_micros(at);
    PrimitiveDateTime::new(at.date(), at.time())
}

pub(crate) fn to_db_opt(at: Option<OffsetDateTime>) -> Option<PrimitiveDateTime> {
    at.map(to_db)
}

/// Stored timestamps are UTC by convention.
pub(crate) const fn from_db(at: PrimitiveDateTime) -> OffsetDateTime {
    at.assume_utc()
}

pub(crate) fn from_db_opt(at: Option<PrimitiveDateTime>) -> Option<OffsetDateTime> {
    at.map(from_db)
}

/// Parses a stored value with its `FromStr`. The message names the column, not the value,
/// which may be something a person wrote.
pub(crate) fn parse<T>(raw: &str, what: &'static str) -> anyhow::Result<T>
where
    T: FromStr,
{
    raw.parse::<T>().map_err(|_| invalid(what))
}

/// A stored value the domain refuses.
pub(crate) fn invalid(what: &'static str) -> anyhow::Error {
    anyhow!("stored {what} is not valid")
}
