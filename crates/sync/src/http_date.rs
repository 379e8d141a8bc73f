//! HTTP dates, as the service writes its `Date` and `Retry-After` headers.

/// An HTTP date (`Fri, 27 Nov 2026 13:11:55 GMT`, RFC 9110's preferred form) in UTC.
pub fn http_date(text: &str) -> Option<time::OffsetDateTime> {
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    time::PrimitiveDateTime::parse(text.trim(), format)
        .ok()
        .map(time::PrimitiveDateTime::assume_utc)
}
