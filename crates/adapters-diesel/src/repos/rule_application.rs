//! Rules meeting entries inside a write transaction: reading a person's rules, re-applying them
//! to the entries they decide, and the locks that keep a rule change and a concurrent upsert
//! from each seeing the other half done.
//!
//! **Why the locks.** On PostgreSQL an upsert without a foundation reads the rules and then
//! writes; a rule change writes rules and then re-maps the stored entries. Run side by side
//! under READ COMMITTED, the upsert could decide with the old rules while the re-mapping misses
//! its not yet committed row, and the entry would keep a foundation no rule gives any more. So
//! a rule change takes the person's row `FOR NO KEY UPDATE`, and an upsert that needs the rules
//! takes it `FOR SHARE` before reading them: one of the two waits for the other's commit. The
//! foreign-key checks of every other insert take `FOR KEY SHARE`, which neither blocks, so the
//! person's other requests go on during a long re-mapping. SQLite's `BEGIN IMMEDIATE` already
//! lets one writer in at a time.

use std::collections::HashMap;

use diesel::prelude::*;
use domain::foundation::Foundation;
use domain::integration::{EntryFacts, MappedBy, Rule, first_match};
use time::OffsetDateTime;

use crate::connection::DbConnection;
use crate::convert::{parse, to_db};
use crate::error::StoreResult;
use crate::models::mapping_rule::MappingRuleRow;
use crate::models::task_mapping::{mapping_columns, tags_from_json};
use crate::schema::{mapping_rules, task_mapping, users};

/// How many entries one re-mapping UPDATE names (SQLite binds each as its own parameter).
const REMAP_CHUNK: usize = 500;

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

/// What re-mapping reads of one entry: id, label, tags (JSON), current foundation.
type Candidate = (String, Option<String>, String, Option<String>);

/// Decides again, with `rules`, every entry of the person that is unmapped or rule-mapped, and
/// writes the ones whose foundation changes; entries the tracker mapped are never read or
/// written. Returns how many changed.
pub(crate) fn reapply(
    conn: &mut DbConnection,
    user: &str,
    rules: &[Rule],
    now: OffsetDateTime,
) -> StoreResult<usize> {
    use task_mapping as tm;
    let candidates: Vec<Candidate> = tm::table
        .filter(tm::user_id.eq(user))
        .filter(
            tm::mapped_by
                .is_null()
                .or(tm::mapped_by.eq(MappedBy::Rule.key())),
        )
        .select((
            tm::external_task_id,
            tm::task_label,
            tm::tags,
            tm::foundation,
        ))
        .load(conn)?;
    let mut moves: HashMap<Option<Foundation>, Vec<String>> = HashMap::new();
    for (external_task_id, label, tags, current) in candidates {
        let tags = tags_from_json(&tags)?;
        let decided = first_match(
            rules,
            &EntryFacts {
                external_task_id: &external_task_id,
                task_label: label.as_deref(),
                tags: &tags,
            },
        );
        let current: Option<Foundation> = current
            .as_deref()
            .map(|f| parse(f, "task_mapping.foundation"))
            .transpose()?;
        if decided != current {
            moves.entry(decided).or_default().push(external_task_id);
        }
    }
    let now = to_db(now);
    let mut changed = 0;
    for (foundation, ids) in moves {
        let (foundation, mapped_by) = mapping_columns(foundation.map(|f| (f, MappedBy::Rule)));
        for chunk in ids.chunks(REMAP_CHUNK) {
            changed += diesel::update(
                tm::table
                    .filter(tm::user_id.eq(user))
                    .filter(tm::external_task_id.eq_any(chunk))
                    .filter(
                        tm::mapped_by
                            .is_null()
                            .or(tm::mapped_by.eq(MappedBy::Rule.key())),
                    ),
            )
            .set((
                tm::foundation.eq(&foundation),
                tm::mapped_by.eq(&mapped_by),
                tm::updated_at.eq(now),
            ))
            .execute(conn)?;
        }
    }
    Ok(changed)
}
