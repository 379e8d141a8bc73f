//! [`TaskMappingRepository`] over diesel: idempotent upserts (deciding a missing foundation
//! with the person's rules in the same transaction), the filtered listing, the unmapped view,
//! and the per-day and per-week sums in the person's time zone, added up by the database.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use diesel::dsl::{count_star, max, sum};
use diesel::prelude::*;
use domain::RepoError;
use domain::account::{OffsetSpan, TimeZone};
use domain::foundation::Foundation;
use domain::ids::UserId;
use domain::integration::{
    BatchOutcome, DailyMinutes, FoundationFilter, FoundationMinutes, RuleSet, Sweep, TaskMapping,
    TaskMappingInput, TaskMappingQuery, UnmappedGroup, UnmappedQuery, UpsertOutcome, Weeks, Window,
};
use domain::pagination::{Cursor, Page};
use domain::ports::TaskMappingRepository;
use time::{OffsetDateTime, PrimitiveDateTime};

use super::keyset::{cursor_key, overfetch};
use super::rule_application::{load_rules, lock_for_mapping};
use crate::connection::DbConnection;
use crate::convert::{from_db, parse, to_db};
use crate::error::{StoreError, StoreResult};
use crate::expressions::{GroupKey, LocalDay};
use crate::models::task_mapping::{NewTaskMapping, TaskMappingRow, tags_from_json};
use crate::person_turns::Changes;
use crate::schema::task_mapping;
use crate::tx::on_backend;

super::declare::repository!(
    /// Task mappings and the work-pattern rollup over them.
    DieselTaskMappingRepository
);

#[async_trait]
impl TaskMappingRepository for DieselTaskMappingRepository {
    async fn upsert(
        &self,
        user: UserId,
        input: &TaskMappingInput,
        now: OffsetDateTime,
    ) -> Result<(TaskMapping, UpsertOutcome), RepoError> {
        let (user, input) = (user.to_string(), input.clone());
        // No transaction of its own: whichever way it goes, a single statement writes, so it
        // can share a commit with the upserts that arrive at the same time (group commit).
        self.db
            .write_one("storing a task mapping", move |conn| {
                let rules = rules_for(conn, &user, std::slice::from_ref(&input))?;
                let row = NewTaskMapping::new(&user, &input, &rules, to_db(now));
                let (stored, outcome) = upsert(conn, &row)?;
                Ok((TaskMapping::try_from(stored)?, outcome))
            })
            .await
    }

    async fn upsert_batch(
        &self,
        user: UserId,
        inputs: Vec<TaskMappingInput>,
        now: OffsetDateTime,
    ) -> Result<BatchOutcome, RepoError> {
        if inputs.is_empty() {
            // Nothing to write (and an INSERT without rows is not SQL).
            return Ok(BatchOutcome::default());
        }
        let user = user.to_string();
        let context = "storing a batch of task mappings";
        // One batch of the person's at a time holds the writer (SQLite) or a connection; the
        // others wait parked, and everyone else's writes go between them.
        let _turn = self.db.person_turn(Changes::Ingest, context, &user).await?;
        self.db
            .write(context, move |conn| {
                let rules = rules_for(conn, &user, &inputs)?;
                let now = to_db(now);
                let rows: Vec<NewTaskMapping<'_>> = last_of_each_id(&inputs)
                    .into_iter()
                    .map(|i| NewTaskMapping::new(&user, i, &rules, now))
                    .collect();
                let created = insert_new(conn, &rows)?;
                if created < rows.len() {
                    update_existing(conn, &rows)?;
                }
                // A repeated external id updates what its first occurrence created, as two
                // calls would: every item that did not create a row updated one.
                Ok(BatchOutcome {
                    created,
                    updated: inputs.len() - created,
                })
            })
            .await
    }

    async fn list(
        &self,
        user: UserId,
        query: &TaskMappingQuery,
    ) -> Result<Page<TaskMapping>, RepoError> {
        let user = user.to_string();
        let query = query.clone();
        self.db
            .run("listing task mappings", move |conn| {
                use task_mapping as tm;
                let mut q = tm::table
                    .filter(tm::user_id.eq(user))
                    .order((tm::occurred_at.desc(), tm::id.desc()))
                    .limit(overfetch(query.limit))
                    .select(TaskMappingRow::as_select())
                    .into_boxed();
                if let Some(from) = query.from {
                    q = q.filter(tm::occurred_at.ge(to_db(from)));
                }
                if let Some(to) = query.to {
                    q = q.filter(tm::occurred_at.lt(to_db(to)));
                }
                match query.foundation {
                    Some(FoundationFilter::Is(f)) => q = q.filter(tm::foundation.eq(f.key())),
                    Some(FoundationFilter::Unmapped) => q = q.filter(tm::foundation.is_null()),
                    None => {}
                }
                if let Some(cursor) = query.before {
                    // Row-value comparison spelled out; the leading `<=` keeps the index range.
                    let (at, id) = cursor_key(&cursor);
                    q = q.filter(
                        tm::occurred_at
                            .le(at)
                            .and(tm::occurred_at.lt(at).or(tm::id.lt(id))),
                    );
                }
                let rows = q
                    .load(conn)?
                    .into_iter()
                    .map(TaskMapping::try_from)
                    .collect::<anyhow::Result<Vec<_>>>()?;
                Ok(Page::from_overfetch(rows, query.limit, |m| Cursor {
                    at: m.occurred_at,
                    id: m.id.as_uuid(),
                }))
            })
            .await
    }

    async fn delete(&self, user: UserId, external_task_id: &str) -> Result<bool, RepoError> {
        let (user, external) = (user.to_string(), external_task_id.to_owned());
        self.db
            .write("deleting a task mapping", move |conn| {
                let n = diesel::delete(
                    task_mapping::table
                        .filter(task_mapping::user_id.eq(user))
                        .filter(task_mapping::external_task_id.eq(external)),
                )
                .execute(conn)?;
                Ok(n > 0)
            })
            .await
    }

    async fn sweep(&self, user: UserId, sweep: &Sweep) -> Result<u64, RepoError> {
        let (user, sweep) = (user.to_string(), sweep.clone());
        self.db
            .write("sweeping task mappings", move |conn| {
                super::sweep::sweep(conn, &user, &sweep)
            })
            .await
    }

    async fn unmapped(
        &self,
        user: UserId,
        query: &UnmappedQuery,
    ) -> Result<Vec<UnmappedGroup>, RepoError> {
        let user = user.to_string();
        let (from, to) = (to_db(query.window.from), to_db(query.window.to));
        let limit = i64::from(query.limit.get());
        self.db
            .run("grouping unmapped time", move |conn| {
                use task_mapping as tm;
                let minutes = sum(tm::minutes);
                let groups: Vec<UnmappedSum> = tm::table
                    .filter(tm::user_id.eq(user))
                    .filter(tm::occurred_at.gt(from))
                    .filter(tm::occurred_at.le(to))
                    .filter(tm::foundation.is_null())
                    .group_by((tm::task_label, tm::tags))
                    .select((
                        tm::task_label,
                        tm::tags,
                        minutes,
                        count_star(),
                        max(tm::occurred_at),
                    ))
                    .order((
                        minutes.desc(),
                        max(tm::occurred_at).desc(),
                        tm::task_label.asc(),
                    ))
                    .limit(limit)
                    .load(conn)?;
                groups
                    .into_iter()
                    .map(|(task_label, tags, minutes, entries, last)| {
                        Ok(UnmappedGroup {
                            task_label,
                            tags: tags_from_json(&tags)?,
                            minutes: minutes.unwrap_or(0),
                            entries,
                            last_occurred_at: from_db(last.ok_or(StoreError::NotFound)?),
                        })
                    })
                    .collect()
            })
            .await
    }

    async fn daily_minutes(
        &self,
        user: UserId,
        window: &Window,
        zone: &TimeZone,
    ) -> Result<Vec<DailyMinutes>, RepoError> {
        // `(from, to]`: stored instants are whole microseconds, so after `from` is from the
        // next microsecond on.
        let ranges = LocalRanges::new(
            to_db(window.from) + MICROSECOND,
            to_db(window.to) + MICROSECOND,
            zone.offset_spans(window.from, window.to),
            false,
        );
        let user = user.to_string();
        self.db
            .run("summing minutes per day", move |conn| {
                local_sums(conn, &user, &ranges)
            })
            .await
    }

    async fn weekly_minutes(
        &self,
        user: UserId,
        weeks: &Weeks,
        zone: &TimeZone,
    ) -> Result<Vec<DailyMinutes>, RepoError> {
        // `[from, to]`: from the start of the first Monday up to now.
        let ranges = LocalRanges::new(
            to_db(weeks.from),
            to_db(weeks.to) + MICROSECOND,
            zone.offset_spans(weeks.from, weeks.to),
            true,
        );
        let user = user.to_string();
        self.db
            .run("summing minutes per week", move |conn| {
                local_sums(conn, &user, &ranges)
            })
            .await
    }

    async fn daily_minutes_of(
        &self,
        users: &[UserId],
        window: &Window,
        zone: &TimeZone,
    ) -> Result<BTreeMap<UserId, Vec<DailyMinutes>>, RepoError> {
        if users.is_empty() {
            return Ok(BTreeMap::new());
        }
        let users: Vec<String> = users.iter().map(ToString::to_string).collect();
        // `(from, to]`, as in `daily_minutes`.
        let ranges = LocalRanges::new(
            to_db(window.from) + MICROSECOND,
            to_db(window.to) + MICROSECOND,
            zone.offset_spans(window.from, window.to),
            false,
        );
        self.db
            .run("summing minutes per person and day", move |conn| {
                let sums = local_sums_of(conn, &users, &ranges)?;
                let mut days: BTreeMap<UserId, BTreeMap<time::Date, DailyMinutes>> =
                    BTreeMap::new();
                for (user, date, foundation, minutes) in sums {
                    let user: UserId = parse(&user, "task_mapping.user_id")?;
                    let day = days
                        .entry(user)
                        .or_default()
                        .entry(date)
                        .or_insert_with(|| empty(date));
                    add(day, foundation, minutes)?;
                }
                Ok(days
                    .into_iter()
                    .map(|(user, days)| (user, days.into_values().collect()))
                    .collect())
            })
            .await
    }
}

/// One group of the unmapped view: label, tags (JSON), minutes, entries, last occurred.
type UnmappedSum = (
    Option<String>,
    String,
    Option<i64>,
    i64,
    Option<time::PrimitiveDateTime>,
);

/// The rules an upsert of `inputs` needs: none when every input names its foundation (the
/// common case, which then reads nothing more), else the person's, read under the lock that
/// orders this write with a rule change.
fn rules_for(
    conn: &mut DbConnection,
    user: &str,
    inputs: &[TaskMappingInput],
) -> StoreResult<RuleSet> {
    if inputs.iter().all(|i| i.foundation.is_some()) {
        return Ok(RuleSet::new(&[]));
    }
    lock_for_mapping(conn, user)?;
    Ok(RuleSet::new(&load_rules(conn, user)?))
}

/// A day with nothing logged yet.
fn empty(date: time::Date) -> DailyMinutes {
    DailyMinutes {
        date,
        minutes: FoundationMinutes::default(),
        unmapped: 0,
    }
}

/// Adds one (foundation, minutes) sum to its day: a NULL foundation is unmapped time.
fn add(
    day: &mut DailyMinutes,
    foundation: Option<String>,
    minutes: Option<i64>,
) -> StoreResult<()> {
    let minutes = minutes.unwrap_or(0);
    match foundation {
        Some(f) => day
            .minutes
            .add(parse::<Foundation>(&f, "task_mapping.foundation")?, minutes),
        None => day.unmapped += minutes,
    }
    Ok(())
}

/// One row of [`local_sums`]: local date, foundation key (NULL: unmapped), minutes.
type DaySum = (time::Date, Option<String>, Option<i64>);

/// One row of [`local_sums_of`]: person, local date, foundation key (NULL: unmapped), minutes.
type PersonDaySum = (String, time::Date, Option<String>, Option<i64>);

/// [`local_sums`] for several people at once: one aggregate per offset span, grouped by person
/// too. A person's date cut by a transition comes in two rows, which the caller adds up.
fn local_sums_of(
    conn: &mut DbConnection,
    users: &[String],
    ranges: &LocalRanges,
) -> StoreResult<Vec<PersonDaySum>> {
    use task_mapping as tm;
    let mut rows = Vec::new();
    for &(from, until, offset) in &ranges.pieces {
        let (user, day, foundation) = (
            GroupKey(tm::user_id),
            LocalDay::new(tm::occurred_at, offset, ranges.week),
            GroupKey(tm::foundation),
        );
        rows.extend(
            tm::table
                .filter(tm::user_id.eq_any(users))
                .filter(tm::occurred_at.ge(from))
                .filter(tm::occurred_at.lt(until))
                .group_by((user, day, foundation))
                .select((user, day, foundation, sum(tm::minutes)))
                .load::<PersonDaySum>(conn)?,
        );
    }
    Ok(rows)
}

/// One microsecond, the precision both backends keep.
const MICROSECOND: time::Duration = time::Duration::microseconds(1);

/// What [`local_sums`] adds up: `[from, until)` cut where the zone's offset changes, each piece
/// grouped by local date (or local week) at its own offset.
struct LocalRanges {
    /// `(from, until, offset_seconds)`, in order, none empty.
    pieces: Vec<(PrimitiveDateTime, PrimitiveDateTime, i32)>,
    week: bool,
}

impl LocalRanges {
    fn new(
        from: PrimitiveDateTime,
        until: PrimitiveDateTime,
        spans: Vec<OffsetSpan>,
        week: bool,
    ) -> Self {
        let pieces = spans
            .into_iter()
            .filter_map(|span| {
                let start = to_db(span.from).max(from);
                let end = span.until.map_or(until, |u| to_db(u).min(until));
                (start < end).then_some((start, end, span.offset_seconds))
            })
            .collect();
        Self { pieces, week }
    }
}

/// One aggregate per offset span of the range (one for a zone without transitions in it), each
/// served by the (user_id, occurred_at) index; the rows themselves never leave the database. A
/// date cut by a transition gets its sums from two aggregates, added here.
fn local_sums(
    conn: &mut DbConnection,
    user: &str,
    ranges: &LocalRanges,
) -> StoreResult<Vec<DailyMinutes>> {
    use task_mapping as tm;
    let mut days: BTreeMap<time::Date, DailyMinutes> = BTreeMap::new();
    for &(from, until, offset) in &ranges.pieces {
        let (day, foundation) = (
            LocalDay::new(tm::occurred_at, offset, ranges.week),
            GroupKey(tm::foundation),
        );
        let sums: Vec<DaySum> = tm::table
            .filter(tm::user_id.eq(user))
            .filter(tm::occurred_at.ge(from))
            .filter(tm::occurred_at.lt(until))
            .group_by((day, foundation))
            .select((day, foundation, sum(tm::minutes)))
            .load(conn)?;
        for (date, foundation, minutes) in sums {
            add(
                days.entry(date).or_insert_with(|| empty(date)),
                foundation,
                minutes,
            )?;
        }
    }
    Ok(days.into_values().collect())
}

/// The entries to write, one per external id: the last one sent, in the order the ids first
/// came, which is what upserting them one after another would leave. (One statement may not
/// touch a row twice.)
fn last_of_each_id(inputs: &[TaskMappingInput]) -> Vec<&TaskMappingInput> {
    let mut kept: Vec<&TaskMappingInput> = Vec::with_capacity(inputs.len());
    let mut at: HashMap<&str, usize> = HashMap::with_capacity(inputs.len());
    for input in inputs {
        match at.entry(input.external_task_id.as_str()) {
            Entry::Occupied(first) => kept[*first.get()] = input,
            Entry::Vacant(first) => {
                first.insert(kept.len());
                kept.push(input);
            }
        }
    }
    kept
}

/// Inserts the rows whose external id is new, in one statement (a batch of 1,000 has 11,000
/// parameters, below both backends' limits), and returns how many: the others are left alone.
/// This is the whole write when an import brings new entries, its common case.
fn insert_new(conn: &mut DbConnection, rows: &[NewTaskMapping<'_>]) -> StoreResult<usize> {
    use task_mapping as tm;
    Ok(on_backend!(conn, c => diesel::insert_into(tm::table)
        .values(rows)
        .on_conflict((tm::user_id, tm::external_task_id))
        .do_nothing()
        .execute(c))?)
}

/// Updates the rows [`insert_new`] left alone, in one statement: an existing row keeps its id
/// and `created_at` and takes everything else. The rows it just inserted are set again to what
/// they hold. (diesel's SQLite multi-row insert takes no `WHERE` on `DO UPDATE` to skip them, and
/// a batch that mixes new and known entries is rare: an import repeated past where it stopped.)
fn update_existing(conn: &mut DbConnection, rows: &[NewTaskMapping<'_>]) -> StoreResult<()> {
    use diesel::upsert::excluded;
    use task_mapping as tm;
    on_backend!(conn, c => diesel::insert_into(tm::table)
        .values(rows)
        .on_conflict((tm::user_id, tm::external_task_id))
        .do_update()
        .set((
            tm::task_label.eq(excluded(tm::task_label)),
            tm::foundation.eq(excluded(tm::foundation)),
            tm::mapped_by.eq(excluded(tm::mapped_by)),
            tm::tags.eq(excluded(tm::tags)),
            tm::match_label.eq(excluded(tm::match_label)),
            tm::match_tags.eq(excluded(tm::match_tags)),
            tm::match_id.eq(excluded(tm::match_id)),
            tm::minutes.eq(excluded(tm::minutes)),
            tm::occurred_at.eq(excluded(tm::occurred_at)),
            tm::updated_at.eq(excluded(tm::updated_at)),
        ))
        .execute(c))?;
    Ok(())
}

/// Inserts the row, or updates the one with the same (user, external id) keeping its id and
/// `created_at`. Either way exactly one statement writes: an INSERT that meets the unique key
/// writes nothing, and then the UPDATE does. `ON CONFLICT DO NOTHING` (unlike `DO UPDATE`) lets
/// diesel cache the prepared INSERT, and a new row needs no RETURNING, which keeps the common
/// case as cheap as a plain INSERT.
fn upsert(
    conn: &mut DbConnection,
    row: &NewTaskMapping<'_>,
) -> StoreResult<(TaskMappingRow, UpsertOutcome)> {
    use task_mapping as tm;
    // A row deleted between the two statements sends us round once more.
    for _ in 0..3 {
        let inserted = on_backend!(conn, c => diesel::insert_into(tm::table)
            .values(row)
            .on_conflict((tm::user_id, tm::external_task_id))
            .do_nothing()
            .execute(c))?;
        if inserted == 1 {
            return Ok((row.stored(), UpsertOutcome::Created));
        }
        let updated: Option<TaskMappingRow> = on_backend!(conn, c => diesel::update(
            tm::table
                .filter(tm::user_id.eq(&row.user_id))
                .filter(tm::external_task_id.eq(&row.external_task_id)),
        )
        .set((
            tm::task_label.eq(row.task_label),
            tm::foundation.eq(row.foundation),
            tm::mapped_by.eq(row.mapped_by),
            tm::tags.eq(&row.tags),
            tm::match_label.eq(&row.match_label),
            tm::match_tags.eq(&row.match_tags),
            tm::match_id.eq(&row.match_id),
            tm::minutes.eq(row.minutes),
            tm::occurred_at.eq(row.occurred_at),
            tm::updated_at.eq(row.updated_at),
        ))
        .returning(TaskMappingRow::as_returning())
        .get_result(c)
        .optional())?;
        if let Some(stored) = updated {
            return Ok((stored, UpsertOutcome::Updated));
        }
    }
    Err(StoreError::Conflict)
}
