//! `/integration/rules`, `/integration/reclassification` and `/integration/unmapped`: the
//! caller's mapping rules (each change commits at once and queues the re-classification of the
//! entries it can affect, which a background worker runs), its progress, and the unmapped time
//! still to classify.

use super::declaration::Route;
use crate::answers::{Created, NoContent};
use crate::auth::policy::Policy;
use actix_web::{HttpMessage, HttpRequest, web};
use domain::account::KeyScope;
use domain::ids::RuleId;
use domain::integration::{MAX_RULES_PER_USER, RuleChangeError, Window};
use domain::pagination::PageLimit;
use domain::services::integration::WorkPatternError;

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::requests::mapping_rules::{RuleRequest, UnmappedQuery};
use crate::service_types::Integration;
use crate::views::mapping_rules::{ReclassificationView, RuleView, UnmappedGroupView};

/// The routes of this file, mounted under `/integration` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::Key(KeyScope::Integration), list, __path_list),
        Route::new(Policy::Key(KeyScope::Integration), create, __path_create),
        Route::new(Policy::Key(KeyScope::Integration), replace, __path_replace),
        Route::new(Policy::Key(KeyScope::Integration), delete, __path_delete),
        Route::new(
            Policy::Key(KeyScope::Integration),
            reclassification,
            __path_reclassification,
        ),
        Route::new(
            Policy::Key(KeyScope::Integration),
            unmapped,
            __path_unmapped,
        ),
    ]
}

impl From<RuleChangeError> for ApiError {
    fn from(e: RuleChangeError) -> Self {
        match e {
            RuleChangeError::TooMany => Self::Conflict {
                code: "too_many_rules",
                message: TOO_MANY_RULES,
            },
            RuleChangeError::NotFound => Self::NotFound,
            RuleChangeError::Repo(e) => e.into(),
        }
    }
}

const TOO_MANY_RULES: &str = "A person has at most 500 rules; delete one first.";
const _: () = assert!(MAX_RULES_PER_USER == 500, "TOO_MANY_RULES names the limit");

/// The rule id of the path; any other value finds nothing.
fn rule_id(raw: &str) -> Result<RuleId, ApiError> {
    raw.parse().map_err(|_| ApiError::NotFound)
}

#[utoipa::path(
    get,
    path = "/integration/rules",
    tag = "integration",
    summary = "The caller's mapping rules, by position.",
    responses(
        (status = 200, description = "The rules; the first that matches an entry decides.", body = [RuleView]),
    ),
)]
pub(crate) async fn list(
    integration: web::Data<Integration>,
    caller: Caller,
) -> Result<web::Json<Vec<RuleView>>, ApiError> {
    let rules = integration.rules(caller.user_id).await?;
    let views: Vec<RuleView> = rules.iter().map(Into::into).collect();
    Ok(web::Json(views))
}

#[utoipa::path(
    post,
    path = "/integration/rules",
    tag = "integration",
    summary = "Add a rule; its entries are re-classified in the background.",
    description = "The rule commits at once. The unmapped and rule-mapped entries it matches \
                   are then decided again by a background job (see \
                   `GET /integration/reclassification`); entries sent with a foundation are \
                   never touched.",
    request_body = RuleRequest,
    responses(
        (status = 201, description = "The rule, at its position.", body = RuleView),
        (status = 409, description = "`too_many_rules`: already 500.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn create(
    integration: web::Data<Integration>,
    caller: Caller,
    body: ApiJson<RuleRequest>,
    req: HttpRequest,
) -> Result<Created<RuleView>, ApiError> {
    req.extensions_mut().insert(Action("mapping_rule.create"));
    let rule = body.into_inner().into_rule()?;
    let created = integration.add_rule(caller.user_id, &rule).await?;
    Ok(Created(RuleView::from(&created)))
}

#[utoipa::path(
    put,
    path = "/integration/rules/{id}",
    tag = "integration",
    summary = "Replace a rule; its entries are re-classified in the background.",
    description = "Without `position`, the rule keeps its place. The entries the rule matched \
                   or now matches are decided again by a background job.",
    params(("id" = String, Path, description = "The rule's id.")),
    request_body = RuleRequest,
    responses(
        (status = 200, description = "The rule, at its position.", body = RuleView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn replace(
    integration: web::Data<Integration>,
    caller: Caller,
    id: web::Path<String>,
    body: ApiJson<RuleRequest>,
    req: HttpRequest,
) -> Result<web::Json<RuleView>, ApiError> {
    req.extensions_mut().insert(Action("mapping_rule.replace"));
    let id = rule_id(&id)?;
    let rule = body.into_inner().into_rule()?;
    let replaced = integration.replace_rule(caller.user_id, id, &rule).await?;
    Ok(web::Json(RuleView::from(&replaced)))
}

#[utoipa::path(
    delete,
    path = "/integration/rules/{id}",
    tag = "integration",
    summary = "Delete a rule; the entries it matched are re-classified in the background.",
    params(("id" = String, Path, description = "The rule's id.")),
    responses(
        (status = 204, description = "Deleted."),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn delete(
    integration: web::Data<Integration>,
    caller: Caller,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<NoContent, ApiError> {
    req.extensions_mut().insert(Action("mapping_rule.delete"));
    let id = rule_id(&id)?;
    integration.delete_rule(caller.user_id, id).await?;
    Ok(NoContent)
}

#[utoipa::path(
    get,
    path = "/integration/reclassification",
    tag = "integration",
    summary = "How far the re-classification after a rule change is.",
    description = "While it runs, work patterns carry `reclassifying: true`.",
    responses(
        (status = 200, description = "Idle, or running with its progress.", body = ReclassificationView),
    ),
)]
pub(crate) async fn reclassification(
    integration: web::Data<Integration>,
    caller: Caller,
) -> Result<web::Json<ReclassificationView>, ApiError> {
    let progress = integration.reclassification(caller.user_id).await?;
    Ok(web::Json(ReclassificationView::from(progress)))
}

#[utoipa::path(
    get,
    path = "/integration/unmapped",
    tag = "integration",
    summary = "Unmapped time, grouped by label and tags, largest first.",
    params(UnmappedQuery),
    responses(
        (status = 200, description = "What the caller still has to classify.", body = [UnmappedGroupView]),
    ),
)]
pub(crate) async fn unmapped(
    integration: web::Data<Integration>,
    caller: Caller,
    params: web::Query<UnmappedQuery>,
) -> Result<web::Json<Vec<UnmappedGroupView>>, ApiError> {
    let days = params.days.unwrap_or(i64::from(Window::DEFAULT_DAYS));
    let limit = match params.limit {
        None => PageLimit::DEFAULT,
        Some(n) => PageLimit::new(n).map_err(|e| ApiError::invalid("limit", e))?,
    };
    match integration.unmapped(caller.user_id, days, limit).await {
        Ok(groups) => {
            let views: Vec<UnmappedGroupView> = groups.iter().map(Into::into).collect();
            Ok(web::Json(views))
        }
        Err(WorkPatternError::InvalidDays(e)) => Err(ApiError::invalid("days", e)),
        Err(WorkPatternError::Repo(e)) => Err(e.into()),
    }
}
