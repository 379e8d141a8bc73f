//! The activity middleware: after each response, one entry (who, how, what, status, duration,
//! request id, ip, user agent) is queued. Health probes and metrics scrapes are left out so they
//! do not drown the log.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, web};
use domain::account::ActivityEntry;
use domain::clock::{Clock, SystemClock};
use domain::ids::ActivityId;

use super::Action;
use super::queue::ActivityQueue;
use crate::auth::Caller;
use crate::auth::caller::Identified;
use crate::middleware::client_ip;
use crate::middleware::request_id::RequestId;
use crate::middleware::route_pattern;

// Prometheus scrapes every few seconds; recording each scrape would bury people's requests.
const UNLOGGED: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

pub async fn record(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if UNLOGGED.contains(&req.path()) {
        return next.call(req).await;
    }
    let started = Instant::now();
    let at = SystemClock.now();
    let queue = req.app_data::<web::Data<ActivityQueue>>().cloned();
    let method = req.method().to_string();
    let path = req.path().to_owned();
    let ip = client_ip::of_request(req.request()).map(|ip| ip.to_string());
    let user_agent = req
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.chars().take(500).collect());
    let response = next.call(req).await?;
    let Some(queue) = queue else {
        return Ok(response);
    };

    // Read what the handlers left in the extensions, and let go of them before awaiting.
    let request = response.request();
    let named = request.extensions().get::<Action>().map(|a| a.0);
    let action = named.map_or_else(
        || {
            let route = route_pattern::label(route_pattern::of(request), response.status());
            format!("{method} {route}")
        },
        str::to_owned,
    );
    let (caller, request_id) = {
        let extensions = request.extensions();
        let request_id = extensions
            .get::<RequestId>()
            .map(|r| r.0.clone())
            .unwrap_or_default();
        // Handlers that sign someone in set `Caller` themselves; otherwise who the credentials named.
        let caller = extensions
            .get::<Caller>()
            .copied()
            .or_else(|| extensions.get::<Identified>().map(|i| i.0));
        (caller, request_id)
    };
    let entry = ActivityEntry {
        id: ActivityId::new(),
        user_id: caller.map(|c| c.user_id),
        at,
        action,
        method,
        path,
        status: response.status().as_u16(),
        source: caller.map(|c| c.source),
        duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
        request_id,
        ip,
        user_agent,
    };
    queue.push(entry).await;
    Ok(response)
}
