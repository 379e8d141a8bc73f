//! Typed SQL fragments that the two backends spell differently, built so that diesel can cache
//! the prepared statements that use them (a raw SQL literal forces a fresh prepare per call).

use diesel::QueryResult;
use diesel::expression::{
    AppearsOnTable, Expression, SelectableExpression, ValidGrouping, is_aggregate,
};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Bool, Date, Integer, Text};
use diesel::sqlite::Sqlite;

use crate::connection::DbBackend;

/// The UTC calendar date of a `TIMESTAMP` column holding UTC: `CAST(c AS DATE)` on PostgreSQL,
/// `date(c)` on SQLite.
///
/// Meant as a GROUP BY key: it claims to never aggregate, as a literal would, so it may be
/// selected beside that GROUP BY (diesel cannot see that a computed key is grouped).
#[derive(Debug, Clone, Copy, QueryId)]
pub(crate) struct UtcDate<C>(pub(crate) C);

/// The local calendar date — or, with `week`, the Monday of the local week — of a `TIMESTAMP`
/// column holding UTC, at a fixed offset from UTC: the key by which one offset span of the
/// person's zone is grouped (a zone's spans are summed one query each).
///
/// The offset is written into the SQL as a number, not bound: PostgreSQL matches a selected
/// key with its GROUP BY only when both are the same expression, which two parameters are not.
/// It is an `i32` the service computed, never text from a request. Statements are cached by
/// their text, one per offset seen.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalDay<C> {
    column: C,
    offset_seconds: i32,
    week: bool,
}

impl<C> LocalDay<C> {
    pub(crate) const fn new(column: C, offset_seconds: i32, week: bool) -> Self {
        Self {
            column,
            offset_seconds,
            week,
        }
    }
}

impl<C> QueryId for LocalDay<C> {
    type QueryId = ();
    // The SQL depends on the offset: cached by its text, not its type.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<C: Expression> Expression for LocalDay<C> {
    type SqlType = Date;
}

impl<C: QueryFragment<Pg>> QueryFragment<Pg> for LocalDay<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(if self.week {
            "CAST(date_trunc('week', "
        } else {
            "CAST(("
        });
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(&format!(
            " + INTERVAL '{} seconds') AS DATE)",
            self.offset_seconds
        ));
        Ok(())
    }
}

impl<C: QueryFragment<Sqlite>> QueryFragment<Sqlite> for LocalDay<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        out.push_sql("date(");
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(&format!(", '{:+} seconds'", self.offset_seconds));
        if self.week {
            // Forward to the Sunday that ends the week (or stay on it), then back to its Monday.
            out.push_sql(", 'weekday 0', '-6 days'");
        }
        out.push_sql(")");
        Ok(())
    }
}

/// A column used as a GROUP BY key next to a computed one ([`UtcDate`]); diesel's check that a
/// selected column is grouped cannot see through the computed key.
#[derive(Debug, Clone, Copy, QueryId)]
pub(crate) struct GroupKey<C>(pub(crate) C);

impl<C: Expression> Expression for UtcDate<C> {
    type SqlType = Date;
}

impl<C: Expression> Expression for GroupKey<C> {
    type SqlType = C::SqlType;
}

macro_rules! grouping_key_impls {
    ($($node:ident),+) => {$(
        impl<C: AppearsOnTable<QS>, QS: ?Sized> AppearsOnTable<QS> for $node<C> {}
        impl<C: SelectableExpression<QS>, QS: ?Sized> SelectableExpression<QS> for $node<C> {}
        impl<C, GB> ValidGrouping<GB> for $node<C> {
            type IsAggregate = is_aggregate::Never;
        }
        impl<C> QueryFragment<DbBackend> for $node<C>
        where
            Self: QueryFragment<Pg> + QueryFragment<Sqlite>,
        {
            fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, DbBackend>) -> QueryResult<()> {
                DbBackend::walk_variant_ast(self, pass)
            }
        }
    )+};
}
grouping_key_impls!(UtcDate, GroupKey, LocalDay);

impl<C: QueryFragment<Pg>> QueryFragment<Pg> for UtcDate<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("CAST(");
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(" AS DATE)");
        Ok(())
    }
}

impl<C: QueryFragment<Sqlite>> QueryFragment<Sqlite> for UtcDate<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        out.push_sql("date(");
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(")");
        Ok(())
    }
}

impl<C: QueryFragment<Pg>> QueryFragment<Pg> for GroupKey<C> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}

impl<C: QueryFragment<Sqlite>> QueryFragment<Sqlite> for GroupKey<C> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}

/// Whether a `task_mapping` row is in a re-classification job's scope
/// ([`domain::integration::Scope`]): it meets one of the conditions on its stored folded keys,
/// or it was written before those keys existed (`match_tags IS NULL`), or the scope is every
/// row. Set-based: the database tests each condition as one string function, no rule is tried
/// in Rust for rows outside the scope.
#[derive(Debug, Clone)]
pub(crate) struct InScope {
    /// `None`: every row.
    conditions: Option<Vec<Condition>>,
}

/// One condition, with the text bound as the SQL compares it.
#[derive(Debug, Clone)]
enum Condition {
    LabelEquals(String),
    LabelContains(String),
    /// `\u{1f}tag\u{1f}`, found inside `match_tags`.
    Tag(String),
    /// The folded prefix and its length in characters.
    IdPrefix(String, i32),
}

impl InScope {
    pub(crate) fn new(scope: &domain::integration::Scope) -> Self {
        use domain::integration::{MatchKind, Scope, tag_needle};
        let conditions = match scope {
            Scope::Every => None,
            Scope::Matching(matches) => Some(
                matches
                    .iter()
                    .map(|m| {
                        let text = m.folded().to_owned();
                        match m.kind() {
                            MatchKind::LabelEquals => Condition::LabelEquals(text),
                            MatchKind::LabelContains => Condition::LabelContains(text),
                            MatchKind::Tag => Condition::Tag(tag_needle(&text)),
                            MatchKind::ExternalTaskIdPrefix => {
                                let chars = i32::try_from(text.chars().count()).unwrap_or(i32::MAX);
                                Condition::IdPrefix(text, chars)
                            }
                        }
                    })
                    .collect(),
            ),
        };
        Self { conditions }
    }

    /// The shared SQL; `position` spells "where `needle` starts in `haystack`, 0 when absent".
    fn walk<'b, DB>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        position: &'static str,
    ) -> QueryResult<()>
    where
        DB: diesel::backend::Backend,
        DB: diesel::sql_types::HasSqlType<Text> + diesel::sql_types::HasSqlType<Integer>,
        String: diesel::serialize::ToSql<Text, DB>,
        i32: diesel::serialize::ToSql<Integer, DB>,
    {
        let Some(conditions) = &self.conditions else {
            out.push_sql("1 = 1");
            return Ok(());
        };
        out.push_sql("(match_tags IS NULL");
        for condition in conditions {
            out.push_sql(" OR ");
            match condition {
                Condition::LabelEquals(text) => {
                    out.push_sql("match_label = ");
                    out.push_bind_param::<Text, _>(text)?;
                }
                Condition::LabelContains(text) => {
                    out.push_sql(position);
                    out.push_sql("(match_label, ");
                    out.push_bind_param::<Text, _>(text)?;
                    out.push_sql(") > 0");
                }
                Condition::Tag(needle) => {
                    out.push_sql(position);
                    out.push_sql("(match_tags, ");
                    out.push_bind_param::<Text, _>(needle)?;
                    out.push_sql(") > 0");
                }
                Condition::IdPrefix(text, chars) => {
                    out.push_sql("substr(COALESCE(match_id, external_task_id), 1, ");
                    out.push_bind_param::<Integer, _>(chars)?;
                    out.push_sql(") = ");
                    out.push_bind_param::<Text, _>(text)?;
                }
            }
        }
        out.push_sql(")");
        Ok(())
    }
}

impl Expression for InScope {
    type SqlType = Bool;
}

impl QueryId for InScope {
    type QueryId = ();
    // The SQL depends on the conditions: cached by its text, not its type.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl AppearsOnTable<crate::schema::task_mapping::table> for InScope {}
impl SelectableExpression<crate::schema::task_mapping::table> for InScope {}
impl<GB> ValidGrouping<GB> for InScope {
    type IsAggregate = is_aggregate::Never;
}

impl QueryFragment<DbBackend> for InScope {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, DbBackend>) -> QueryResult<()> {
        DbBackend::walk_variant_ast(self, pass)
    }
}

impl QueryFragment<Pg> for InScope {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.walk(out, "strpos")
    }
}

impl QueryFragment<Sqlite> for InScope {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        self.walk(out, "instr")
    }
}
