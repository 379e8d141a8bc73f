//! Rules meeting entries inside a write transaction: reading a person's rules, and the locks
//! that keep a rule change (or a re-classification step) and a concurrent upsert from each
//! seeing the other half done.
//!
//! **Why the locks.** On PostgreSQL an upsert without a foundation reads the rules and then
//! writes; a rule change writes rules and then re-maps the stored entries. Run side by side
//! under READ COMMITTED, the upsert could decide with the old rules while the re-mapping misses
//! its not yet committed row, and the entry would keep a foundation no rule gives any more. So
//! a rule change (and each write step of the re-classification it queues) takes the person's
//! row `FOR NO KEY UPDATE`, and an upsert that needs the rules takes it `FOR SHARE` before
//! reading them: one of the two waits for the other's commit, which is short on both sides. The
//! foreign-key checks of every other insert take `FOR KEY SHARE`, which neither blocks, so the
//! person's other requests go on. SQLite's `BEGIN IMMEDIATE` already lets one writer in at a
//! time.

use diesel::prelude::*;
use domain::integration::Rule;

use crate::connection::DbConnection;
use crate::error::StoreResult;
use crate::models::mapping_rule::MappingRuleRow;
use crate::schema::{mapping_rules, users};

/// Taken by a rule change before it touches anything (see the module documentation).
pub(crate) fn lock_for_rule_change(conn: &mut DbConnection, user: &str) -> StoreResult<()> {
    if let DbConnection::Postgresql(pg) = conn {
        users::table
            .filter(users::id.eq(user))
            .select(users::id)
            .for_no_key_update()
            .load::<String>(pg)?;
    }
    Ok(())
}

/// Taken by an upsert before it reads the rules (see the module documentation).
pub(crate) fn lock_for_mapping(conn: &mut DbConnection, user: &str) -> StoreResult<()> {
    if let DbConnection::Postgresql(pg) = conn {
        users::table
            .filter(users::id.eq(user))
            .select(users::id)
            .for_share()
            .load::<String>(pg)?;
    }
    Ok(())
}

/// The person's rules, by position.
pub(crate) fn load_rules(conn: &mut DbConnection, user: &str) -> StoreResult<Vec<Rule>> {
    use mapping_rules as r;
    Ok(r::table
        .filter(r::user_id.eq(user))
        .order((r::position.asc(), r::created_at.asc(), r::id.asc()))
        .select(MappingRuleRow::as_select())
        .load(conn)?
        .into_iter()
        .map(Rule::try_from)
        .collect::<anyhow::Result<Vec<_>>>()?)
}
