//! `?limit=&before=`, as every growing list is paged.

use domain::pagination::{Cursor, PageLimit};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterIn};

use super::rules;
use crate::error::Invalid;

/// `?limit=&before=`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    pub limit: Option<i64>,
    pub before: Option<String>,
}

impl IntoParams for PageQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![
            rules::query_param(
                "limit",
                Some("Items per page, 1-1,000 (default 100)."),
                rules::page_limit(),
            ),
            rules::query_param(
                "before",
                Some("The `next_cursor` of the previous page."),
                rules::cursor(),
            ),
        ]
    }
}

impl PageQuery {
    /// The page size and the cursor to continue after.
    ///
    /// # Errors
    /// 422 naming `limit` or `before`.
    pub fn parse(&self) -> Result<(PageLimit, Option<Cursor>), Invalid> {
        page(self.limit, self.before.as_deref())
    }
}

/// Reads `limit` and `before` wherever a query carries them beside other parameters.
///
/// # Errors
/// 422 naming `limit` or `before`.
pub fn page(
    limit: Option<i64>,
    before: Option<&str>,
) -> Result<(PageLimit, Option<Cursor>), Invalid> {
    let limit = match limit {
        None => PageLimit::default(),
        Some(n) => PageLimit::new(n).map_err(|e| Invalid::field("limit", e))?,
    };
    let before = match before {
        None | Some("") => None,
        Some(c) => Some(
            c.parse::<Cursor>()
                .map_err(|e| Invalid::field("before", e))?,
        ),
    };
    Ok((limit, before))
}
