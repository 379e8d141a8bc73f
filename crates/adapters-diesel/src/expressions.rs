//! Typed SQL fragments that the two backends spell differently, built so that diesel can cache
//! the prepared statements that use them (a raw SQL literal forces a fresh prepare per call).

use diesel::QueryResult;
use diesel::expression::{
    AppearsOnTable, Expression, SelectableExpression, ValidGrouping, is_aggregate,
};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::Date;
use diesel::sqlite::Sqlite;

use crate::connection::DbBackend;

/// The UTC calendar date of a `TIMESTAMP` column holding UTC: `CAST(c AS DATE)` on PostgreSQL,
/// `date(c)` on SQLite.
///
/// Meant as a GROUP BY key: it claims to never aggregate, as a literal would, so it may be
/// selected beside that GROUP BY (diesel cannot see that a computed key is grouped).
#[derive(Debug, Clone, Copy, QueryId)]
pub(crate) struct UtcDate<C>(pub(crate) C);

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
grouping_key_impls!(UtcDate, GroupKey);

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
