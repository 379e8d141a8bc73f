//! [`RuleRepository`] over diesel: a person's mapping rules, kept at positions 1, 2, ... with
//! no gaps, each change queueing the re-classification of the entries it can affect in its own
//! short transaction; and the steps of that job (`reclassification`).

use std::num::NonZeroU32;

use async_trait::async_trait;
use diesel::dsl::count_star;
use diesel::prelude::*;
use domain::RepoError;
use domain::ids::{RuleId, UserId};
use domain::integration::{
    MAX_RULES_PER_USER, MatchKind, NewRule, Pattern, Reclassification, ReclassifyStep, Rule,
    RuleChangeError, RuleMatch, Scope, placed_at,
};
use domain::ports::RuleRepository;
use time::OffsetDateTime;

use super::reclassification::{self, Wrote, enqueue};
use super::rule_application::{load_rules, lock_for_rule_change};
use crate::connection::DbConnection;
use crate::convert::invalid;
use crate::convert::to_db;
use crate::error::StoreResult;
use crate::models::mapping_rule::MappingRuleRow;
use crate::person_turns::Changes;
use crate::schema::mapping_rules;
use crate::tx::read_tx;

super::declare::repository!(
    /// Mapping rules, and the re-classification of the person's entries they queue.
    DieselRuleRepository
);

/// A change refused before anything was written.
enum Refused {
    TooMany,
    NotFound,
}

impl From<Refused> for RuleChangeError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::TooMany => Self::TooMany,
            Refused::NotFound => Self::NotFound,
        }
    }
}

/// What a change step answers: the refusal leaves the transaction with nothing written.
type Step<T> = StoreResult<Result<T, Refused>>;

#[async_trait]
impl RuleRepository for DieselRuleRepository {
    async fn list(&self, user: UserId) -> Result<Vec<Rule>, RepoError> {
        let user = user.to_string();
        self.db
            .run("listing mapping rules", move |conn| load_rules(conn, &user))
            .await
    }

    async fn create(
        &self,
        user: UserId,
        rule: &NewRule,
        now: OffsetDateTime,
    ) -> Result<Rule, RuleChangeError> {
        let (user, rule) = (user.to_string(), rule.clone());
        self.change("adding a mapping rule", user.clone(), move |conn| {
            lock_for_rule_change(conn, &user)?;
            let count = count_rules(conn, &user)?;
            if count >= MAX_RULES_PER_USER as u32 {
                return Ok(Err(Refused::TooMany));
            }
            let position = placed_at(rule.position, count + 1);
            shift(conn, &user, position.., 1)?;
            let id = RuleId::new().to_string();
            diesel::insert_into(mapping_rules::table)
                .values(row(&id, &user, position, &rule, now))
                .execute(conn)?;
            enqueue(conn, &user, Scope::of_change(None, Some(&rule.matcher)))?;
            read_back(conn, &user, &id)
        })
        .await
    }

    async fn replace(
        &self,
        user: UserId,
        id: RuleId,
        rule: &NewRule,
        // The re-classification it queues stamps the entries it changes with its own time.
        _now: OffsetDateTime,
    ) -> Result<Rule, RuleChangeError> {
        let (user, id, rule) = (user.to_string(), id.to_string(), rule.clone());
        self.change("replacing a mapping rule", user.clone(), move |conn| {
            lock_for_rule_change(conn, &user)?;
            let Some((old, before)) = placed(conn, &user, &id)? else {
                return Ok(Err(Refused::NotFound));
            };
            let count = count_rules(conn, &user)?;
            let old_at = NonZeroU32::new(old);
            let position = placed_at(rule.position.or(old_at), count);
            // Out of its place, then into the new one; the others close up and make room.
            shift(conn, &user, (old + 1).., -1)?;
            shift(conn, &user, position.., 1)?;
            use mapping_rules as r;
            diesel::update(r::table.filter(r::id.eq(&id)))
                .set((
                    r::position.eq(to_i32(position)),
                    r::match_kind.eq(rule.matcher.kind().key()),
                    r::pattern.eq(rule.matcher.pattern()),
                    r::foundation.eq(rule.foundation.key()),
                ))
                .execute(conn)?;
            enqueue(
                conn,
                &user,
                Scope::of_change(Some(&before), Some(&rule.matcher)),
            )?;
            read_back(conn, &user, &id)
        })
        .await
    }

    async fn delete(
        &self,
        user: UserId,
        id: RuleId,
        _now: OffsetDateTime,
    ) -> Result<(), RuleChangeError> {
        let (user, id) = (user.to_string(), id.to_string());
        self.change("deleting a mapping rule", user.clone(), move |conn| {
            lock_for_rule_change(conn, &user)?;
            let Some((old, before)) = placed(conn, &user, &id)? else {
                return Ok(Err(Refused::NotFound));
            };
            diesel::delete(mapping_rules::table.filter(mapping_rules::id.eq(&id))).execute(conn)?;
            shift(conn, &user, (old + 1).., -1)?;
            enqueue(conn, &user, Scope::of_change(Some(&before), None))?;
            Ok(Ok(()))
        })
        .await
    }

    async fn reclassification(&self, user: UserId) -> Result<Reclassification, RepoError> {
        let user = user.to_string();
        self.db
            .run("reading re-classification progress", move |conn| {
                reclassification::progress(conn, &user)
            })
            .await
    }

    async fn reclassification_queue(&self, limit: u32) -> Result<Vec<UserId>, RepoError> {
        self.db
            .run("listing queued re-classifications", move |conn| {
                reclassification::queue(conn, limit)
            })
            .await
    }

    async fn reclassify_step(
        &self,
        user: UserId,
        now: OffsetDateTime,
    ) -> Result<ReclassifyStep, RepoError> {
        let user = user.to_string();
        let reading = user.clone();
        // The read half takes no writer: on SQLite others write meanwhile.
        let read = self
            .db
            .run("re-classifying entries", move |conn| {
                read_tx(conn, |conn| reclassification::read_step(conn, &reading))
            })
            .await?;
        let Some(read) = read else {
            return Ok(ReclassifyStep::Finished);
        };
        let mut decided = 0;
        let mut stretches = read.into_stretches();
        let cap = || {
            self.db
                .background_write_cap(reclassification::POSTGRES_WRITE_CAP)
        };
        while let Some(stretch) = stretches.next(cap()) {
            let covered = stretch.covered();
            let user = user.clone();
            let wrote = self
                .db
                .write("re-classifying entries", move |conn| {
                    reclassification::write_stretch(conn, &user, &stretch, now)
                })
                .await?;
            match wrote {
                Wrote::Moved => decided += covered,
                Wrote::Ended => return Ok(ReclassifyStep::Finished),
                Wrote::Stale => break,
            }
        }
        Ok(ReclassifyStep::More { decided })
    }
}

impl DieselRuleRepository {
    /// Runs one change in a write transaction, in the person's turn, and sorts its answer.
    async fn change<T, F>(
        &self,
        context: &'static str,
        user: String,
        step: F,
    ) -> Result<T, RuleChangeError>
    where
        F: FnOnce(&mut DbConnection) -> Step<T> + Send + 'static,
        T: Send + 'static,
    {
        // One change of the person's at a time holds a connection; the others wait parked.
        let _turn = self.db.person_turn(Changes::Rules, context, &user).await?;
        let changed = self.db.write(context, step).await??;
        // Committed, with its job: the worker may start now.
        self.db.reclassification_queued().notify_one();
        Ok(changed)
    }
}

/// The changed rule as it now stands.
fn read_back(conn: &mut DbConnection, user: &str, id: &str) -> Step<Rule> {
    let rule = load_rules(conn, user)?
        .into_iter()
        .find(|r| r.id.to_string() == id)
        .ok_or(crate::error::StoreError::NotFound)?;
    Ok(Ok(rule))
}

fn row(id: &str, user: &str, position: u32, rule: &NewRule, now: OffsetDateTime) -> MappingRuleRow {
    MappingRuleRow {
        id: id.to_owned(),
        user_id: user.to_owned(),
        position: to_i32(position),
        match_kind: rule.matcher.kind().key().to_owned(),
        pattern: rule.matcher.pattern().to_owned(),
        foundation: rule.foundation.key().to_owned(),
        created_at: to_db(now),
    }
}

/// Positions stay at most [`MAX_RULES_PER_USER`] + 1.
fn to_i32(position: u32) -> i32 {
    i32::try_from(position).unwrap_or(i32::MAX)
}

fn count_rules(conn: &mut DbConnection, user: &str) -> StoreResult<u32> {
    let n: i64 = mapping_rules::table
        .filter(mapping_rules::user_id.eq(user))
        .select(count_star())
        .first(conn)?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// The rule's position and condition, `None` when the person has no such rule.
fn placed(conn: &mut DbConnection, user: &str, id: &str) -> StoreResult<Option<(u32, RuleMatch)>> {
    use mapping_rules as r;
    let found: Option<(i32, String, String)> = r::table
        .filter(r::user_id.eq(user))
        .filter(r::id.eq(id))
        .select((r::position, r::match_kind, r::pattern))
        .first(conn)
        .optional()?;
    found
        .map(|(position, kind, pattern)| {
            let kind =
                MatchKind::from_key(&kind).ok_or_else(|| invalid("mapping_rules.match_kind"))?;
            let pattern =
                Pattern::non_blank(pattern).map_err(|_| invalid("mapping_rules.pattern"))?;
            Ok((
                u32::try_from(position).unwrap_or(0),
                RuleMatch::new(kind, pattern),
            ))
        })
        .transpose()
}

/// Moves every rule of the person at `from` or later by `by` places.
fn shift(
    conn: &mut DbConnection,
    user: &str,
    from: std::ops::RangeFrom<u32>,
    by: i32,
) -> StoreResult<()> {
    use mapping_rules as r;
    diesel::update(
        r::table
            .filter(r::user_id.eq(user))
            .filter(r::position.ge(to_i32(from.start))),
    )
    .set(r::position.eq(r::position + by))
    .execute(conn)?;
    Ok(())
}
