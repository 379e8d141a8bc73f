//! [`RuleRepository`] over diesel: a person's mapping rules, kept at positions 1, 2, ... with
//! no gaps, each change re-applying the rules to the entries they decide in its transaction.

use std::num::NonZeroU32;

use async_trait::async_trait;
use diesel::dsl::count_star;
use diesel::prelude::*;
use domain::RepoError;
use domain::ids::{RuleId, UserId};
use domain::integration::{MAX_RULES_PER_USER, NewRule, Rule, RuleChangeError, placed_at};
use domain::ports::RuleRepository;
use time::OffsetDateTime;

use super::rule_application::{load_rules, lock_for_rule_change, reapply};
use crate::connection::DbConnection;
use crate::convert::to_db;
use crate::error::StoreResult;
use crate::models::mapping_rule::MappingRuleRow;
use crate::schema::mapping_rules;

super::declare::repository!(
    /// Mapping rules, and their re-application to the person's entries.
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
        self.change("adding a mapping rule", move |conn| {
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
            finish(conn, &user, &id, now)
        })
        .await
    }

    async fn replace(
        &self,
        user: UserId,
        id: RuleId,
        rule: &NewRule,
        now: OffsetDateTime,
    ) -> Result<Rule, RuleChangeError> {
        let (user, id, rule) = (user.to_string(), id.to_string(), rule.clone());
        self.change("replacing a mapping rule", move |conn| {
            lock_for_rule_change(conn, &user)?;
            let Some(old) = position_of(conn, &user, &id)? else {
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
            finish(conn, &user, &id, now)
        })
        .await
    }

    async fn delete(
        &self,
        user: UserId,
        id: RuleId,
        now: OffsetDateTime,
    ) -> Result<(), RuleChangeError> {
        let (user, id) = (user.to_string(), id.to_string());
        self.change("deleting a mapping rule", move |conn| {
            lock_for_rule_change(conn, &user)?;
            let Some(old) = position_of(conn, &user, &id)? else {
                return Ok(Err(Refused::NotFound));
            };
            diesel::delete(mapping_rules::table.filter(mapping_rules::id.eq(&id))).execute(conn)?;
            shift(conn, &user, (old + 1).., -1)?;
            let rules = load_rules(conn, &user)?;
            reapply(conn, &user, &rules, now)?;
            Ok(Ok(()))
        })
        .await
    }
}

impl DieselRuleRepository {
    /// Runs one change in a write transaction and sorts its answer.
    async fn change<T, F>(&self, context: &'static str, step: F) -> Result<T, RuleChangeError>
    where
        F: FnOnce(&mut DbConnection) -> Step<T> + Send + 'static,
        T: Send + 'static,
    {
        Ok(self.db.write(context, step).await??)
    }
}

/// Re-applies the rules as they now stand and reads the changed rule back.
fn finish(conn: &mut DbConnection, user: &str, id: &str, now: OffsetDateTime) -> Step<Rule> {
    let rules = load_rules(conn, user)?;
    reapply(conn, user, &rules, now)?;
    let rule = rules
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

fn position_of(conn: &mut DbConnection, user: &str, id: &str) -> StoreResult<Option<u32>> {
    use mapping_rules as r;
    let position: Option<i32> = r::table
        .filter(r::user_id.eq(user))
        .filter(r::id.eq(id))
        .select(r::position)
        .first(conn)
        .optional()?;
    Ok(position.and_then(|p| u32::try_from(p).ok()))
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
