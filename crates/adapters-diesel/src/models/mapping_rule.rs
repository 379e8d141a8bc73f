//! `mapping_rules` rows.

use diesel::prelude::*;
use domain::integration::{MatchKind, Pattern, Rule, RuleMatch};
use time::PrimitiveDateTime;

use crate::convert::{from_db, invalid, parse};
use crate::schema::mapping_rules;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = mapping_rules)]
pub(crate) struct MappingRuleRow {
    pub id: String,
    pub user_id: String,
    pub position: i32,
    pub match_kind: String,
    pub pattern: String,
    pub foundation: String,
    pub created_at: PrimitiveDateTime,
}

impl TryFrom<MappingRuleRow> for Rule {
    type Error = anyhow::Error;

    fn try_from(row: MappingRuleRow) -> Result<Self, Self::Error> {
        let kind = MatchKind::from_key(&row.match_kind)
            .ok_or_else(|| invalid("mapping_rules.match_kind"))?;
        let pattern =
            Pattern::non_blank(row.pattern).map_err(|_| invalid("mapping_rules.pattern"))?;
        Ok(Self {
            id: parse(&row.id, "mapping_rules.id")?,
            user_id: parse(&row.user_id, "mapping_rules.user_id")?,
            position: u32::try_from(row.position).map_err(|_| invalid("mapping_rules.position"))?,
            matcher: RuleMatch::new(kind, pattern),
            foundation: parse(&row.foundation, "mapping_rules.foundation")?,
            created_at: from_db(row.created_at),
        })
    }
}
