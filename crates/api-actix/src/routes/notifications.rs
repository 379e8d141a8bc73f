//! `/api/me/notifications` and `/api/me/webhooks`: the e-mail setting, and webhook endpoints —
//! registered (the secret shown once), listed, deleted, tested, with their delivery log — and
//! the e-mails' one-click unsubscribe.

use super::declaration::Route;
use crate::answers::{Accepted, Created, NoContent};
use crate::auth::policy::Policy;
use crate::service_types::{Accounts, Notifications};
use crate::state::EmailAvailable;
use actix_web::{HttpMessage, HttpRequest, web};
use adapters_delivery::SignedLinks;
use domain::ids::WebhookId;
use domain::notifications::WebhookSecret;
use domain::services::notifications::{RegisterWebhookError, SetEmailError};

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::requests::notifications::{
    NotificationSettingsRequest, UnsubscribeQuery, WebhookRequest,
};
use crate::requests::page::PageQuery;
use crate::views::notifications::{
    DeliveryPage, NotificationSettingsView, UnsubscribedView, WebhookCreatedView, WebhookView,
};
use credentials::secrets;

/// The routes of this file, mounted under `/api/me` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::SignedIn, settings, __path_settings),
        Route::new(Policy::SignedIn, put_settings, __path_put_settings),
        Route::new(Policy::Session, create, __path_create),
        Route::new(Policy::Session, list, __path_list),
        Route::new(Policy::Session, delete, __path_delete),
        Route::new(Policy::Session, test, __path_test),
        Route::new(Policy::Session, deliveries, __path_deliveries),
    ]
}

impl From<SetEmailError> for ApiError {
    fn from(e: SetEmailError) -> Self {
        match e {
            SetEmailError::Unavailable => Self::Conflict {
                code: "email_unavailable",
                message: "This server sends no e-mail (SMTP_URL is not set).",
            },
            SetEmailError::Repo(e) => e.into(),
        }
    }
}

impl From<RegisterWebhookError> for ApiError {
    fn from(e: RegisterWebhookError) -> Self {
        match e {
            RegisterWebhookError::Url(why) => Self::invalid("url", why),
            RegisterWebhookError::TooMany => Self::Conflict {
                code: "too_many_webhooks",
                message: "A person has at most 10 webhooks; delete one first.",
            },
            RegisterWebhookError::Repo(e) => e.into(),
        }
    }
}

/// The account's e-mail address, for the setting's view.
async fn email_of(accounts: &Accounts, caller: &Caller) -> Result<String, ApiError> {
    let user = accounts
        .user(caller.user_id)
        .await?
        .ok_or(ApiError::Unauthenticated)?;
    Ok(user.email.as_str().to_owned())
}

#[utoipa::path(
    get,
    path = "/api/me/notifications",
    tag = "notifications",
    summary = "Whether check-ins come by e-mail.",
    responses(
        (status = 200, description = "The setting.", body = NotificationSettingsView),
    ),
)]
pub(crate) async fn settings(
    accounts: web::Data<Accounts>,
    notifications: web::Data<Notifications>,
    mail: web::Data<EmailAvailable>,
    caller: Caller,
) -> Result<web::Json<NotificationSettingsView>, ApiError> {
    let settings = notifications.settings(caller.user_id).await?;
    let email = email_of(&accounts, &caller).await?;
    Ok(web::Json(NotificationSettingsView::new(
        &settings, &email, mail.0,
    )))
}

#[utoipa::path(
    put,
    path = "/api/me/notifications",
    tag = "notifications",
    summary = "Turn check-ins by e-mail on or off.",
    request_body = NotificationSettingsRequest,
    responses(
        (status = 200, description = "The setting.", body = NotificationSettingsView),
        (status = 409, description = "`email_unavailable`: this server sends no e-mail.", body = ErrorBody),
    ),
)]
pub(crate) async fn put_settings(
    accounts: web::Data<Accounts>,
    notifications: web::Data<Notifications>,
    mail: web::Data<EmailAvailable>,
    caller: Caller,
    body: ApiJson<NotificationSettingsRequest>,
    req: HttpRequest,
) -> Result<web::Json<NotificationSettingsView>, ApiError> {
    req.extensions_mut().insert(Action("notifications.update"));
    let settings = notifications
        .set_email(caller.user_id, body.email_checkins, mail.0)
        .await?;
    let email = email_of(&accounts, &caller).await?;
    Ok(web::Json(NotificationSettingsView::new(
        &settings, &email, mail.0,
    )))
}

#[utoipa::path(
    post,
    path = "/api/me/webhooks",
    tag = "notifications",
    summary = "Register a webhook endpoint.",
    request_body = WebhookRequest,
    responses(
        (status = 201, description = "The endpoint with its secret, shown this once.", body = WebhookCreatedView),
        (status = 409, description = "`too_many_webhooks`: already 10.", body = ErrorBody),
    ),
)]
pub(crate) async fn create(
    notifications: web::Data<Notifications>,
    caller: Caller,
    body: ApiJson<WebhookRequest>,
    req: HttpRequest,
) -> Result<Created<WebhookCreatedView>, ApiError> {
    req.extensions_mut().insert(Action("webhook.create"));
    let registration = body.registration()?;
    let secret = secrets::new_webhook_secret()
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("no randomness: {e}")))?;
    let webhook = notifications
        .register(caller.user_id, registration, WebhookSecret::new(secret))
        .await?;
    Ok(Created(WebhookCreatedView::from(&webhook)))
}

#[utoipa::path(
    get,
    path = "/api/me/webhooks",
    tag = "notifications",
    summary = "The caller's webhook endpoints (never the secrets), newest first.",
    responses(
        (status = 200, description = "The endpoints.", body = [WebhookView]),
    ),
)]
pub(crate) async fn list(
    notifications: web::Data<Notifications>,
    caller: Caller,
) -> Result<web::Json<Vec<WebhookView>>, ApiError> {
    let webhooks = notifications.webhooks(caller.user_id).await?;
    let items: Vec<WebhookView> = webhooks.iter().map(Into::into).collect();
    Ok(web::Json(items))
}

/// The endpoint id of the path; any other value finds nothing.
fn webhook_id(raw: &str) -> Result<WebhookId, ApiError> {
    raw.parse().map_err(|_| ApiError::NotFound)
}

#[utoipa::path(
    delete,
    path = "/api/me/webhooks/{id}",
    tag = "notifications",
    summary = "Delete a webhook endpoint and its delivery log.",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses(
        (status = 204, description = "Deleted."),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn delete(
    notifications: web::Data<Notifications>,
    caller: Caller,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<NoContent, ApiError> {
    req.extensions_mut().insert(Action("webhook.delete"));
    let id = webhook_id(&id)?;
    if !notifications.delete(caller.user_id, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(NoContent)
}

#[utoipa::path(
    post,
    path = "/api/me/webhooks/{id}/test",
    tag = "notifications",
    summary = "Queue a `ping` event to this endpoint.",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses(
        (status = 202, description = "Queued; its delivery appears in the log."),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn test(
    notifications: web::Data<Notifications>,
    caller: Caller,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<Accepted, ApiError> {
    req.extensions_mut().insert(Action("webhook.test"));
    let id = webhook_id(&id)?;
    if !notifications.test(caller.user_id, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(Accepted)
}

#[utoipa::path(
    get,
    path = "/api/me/webhooks/{id}/deliveries",
    tag = "notifications",
    summary = "The endpoint's delivery log, newest first.",
    params(("id" = String, Path, description = "The endpoint's id."), PageQuery),
    responses(
        (status = 200, description = "A page.", body = DeliveryPage),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn deliveries(
    notifications: web::Data<Notifications>,
    caller: Caller,
    id: web::Path<String>,
    params: web::Query<PageQuery>,
) -> Result<web::Json<DeliveryPage>, ApiError> {
    let id = webhook_id(&id)?;
    let (limit, before) = params.parse()?;
    let page = notifications
        .deliveries(caller.user_id, id, limit, before)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(web::Json(DeliveryPage::from(&page)))
}

/// The one-click unsubscribe, mounted at the root (see `routes::api`): the e-mail's link
/// carries its own signature, no credential.
pub fn public_routes() -> Vec<Route> {
    vec![Route::new(Policy::Public, unsubscribe, __path_unsubscribe)]
}

#[utoipa::path(
    post,
    path = "/api/notifications/unsubscribe",
    tag = "notifications",
    summary = "Turn check-in e-mails off from an e-mail's one-click link (RFC 8058).",
    description = "Mail programs POST `List-Unsubscribe=One-Click` to the URL of the e-mail's \
                   `List-Unsubscribe` header; no sign-in is needed. The token names one person \
                   and this one setting, and never expires.",
    params(UnsubscribeQuery),
    responses(
        (status = 200, description = "E-mail is off.", body = UnsubscribedView),
        (status = 404, description = "The token is not one this service signed.", body = ErrorBody),
    ),
)]
pub(crate) async fn unsubscribe(
    accounts: web::Data<Accounts>,
    notifications: web::Data<Notifications>,
    links: web::Data<SignedLinks>,
    mail: web::Data<EmailAvailable>,
    query: web::Query<UnsubscribeQuery>,
    req: HttpRequest,
) -> Result<web::Json<UnsubscribedView>, ApiError> {
    req.extensions_mut()
        .insert(Action("notifications.unsubscribe"));
    let user = links.verify(&query.token).ok_or(ApiError::NotFound)?;
    // A person who deleted their account has nothing left to turn off.
    accounts.user(user).await?.ok_or(ApiError::NotFound)?;
    notifications.set_email(user, false, mail.0).await?;
    Ok(web::Json(UnsubscribedView::default()))
}
