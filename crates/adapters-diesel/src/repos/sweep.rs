//! The sweep of task mappings (`TaskMappingRepository::sweep`): one person's entries under an id
//! prefix, in a time range, not sent since a moment, deleted in one transaction.

use diesel::prelude::*;
use domain::integration::Sweep;

use crate::connection::DbConnection;
use crate::convert::{from_db, to_db};
use crate::error::StoreResult;
use crate::schema::task_mapping;

/// Ids per `DELETE ... WHERE id IN (...)`: well below both backends' parameter limits.
const DELETE_CHUNK: usize = 1_000;

/// Deletes what `sweep` takes of `user`'s entries; how many. Runs inside the caller's
/// transaction.
///
/// The database narrows by person, range and age (the `(user_id, occurred_at)` index) and by a
/// `LIKE` on the prefix; the prefix itself is then compared exactly here, because SQLite's
/// `LIKE` ignores ASCII case and `toggl:` must not take `TOGGL:`. Each `DELETE` checks the age
/// again: on PostgreSQL an upsert that commits between the two statements makes the row newer,
/// and the re-checked condition keeps it.
pub(crate) fn sweep(conn: &mut DbConnection, user: &str, sweep: &Sweep) -> StoreResult<u64> {
    use task_mapping as tm;
    let since = to_db(sweep.not_sent_since);
    let candidates: Vec<(
        String,
        String,
        time::PrimitiveDateTime,
        time::PrimitiveDateTime,
    )> = tm::table
        .filter(tm::user_id.eq(user))
        .filter(tm::occurred_at.ge(to_db(sweep.from)))
        .filter(tm::occurred_at.lt(to_db(sweep.to)))
        .filter(tm::updated_at.lt(since))
        .filter(
            tm::external_task_id
                .like(like_prefix(sweep.prefix.as_str()))
                .escape('\\'),
        )
        .select((
            tm::id,
            tm::external_task_id,
            tm::occurred_at,
            tm::updated_at,
        ))
        .load(conn)?;
    let ids: Vec<String> = candidates
        .into_iter()
        .filter(|(_, external, occurred, updated)| {
            sweep.takes(external, from_db(*occurred), from_db(*updated))
        })
        .map(|(id, ..)| id)
        .collect();
    let mut deleted = 0;
    for chunk in ids.chunks(DELETE_CHUNK) {
        deleted += diesel::delete(
            tm::table
                .filter(tm::user_id.eq(user))
                .filter(tm::id.eq_any(chunk))
                .filter(tm::updated_at.lt(since)),
        )
        .execute(conn)?;
    }
    Ok(u64::try_from(deleted).unwrap_or(u64::MAX))
}

/// `prefix%` with `\`, `%` and `_` escaped, for `LIKE ... ESCAPE '\'`.
fn like_prefix(prefix: &str) -> String {
    let mut pattern = String::with_capacity(prefix.len() + 1);
    for c in prefix.chars() {
        if matches!(c, '\\' | '%' | '_') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

#[cfg(test)]
mod tests {
    use super::like_prefix;

    #[test]
    fn like_wildcards_in_the_prefix_are_taken_literally() {
        assert_eq!(like_prefix("toggl:"), "toggl:%");
        assert_eq!(like_prefix("a_b%c\\"), "a\\_b\\%c\\\\%");
    }
}
