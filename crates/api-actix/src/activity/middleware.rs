//! The activity middleware: after each response, one entry (who, how, what, status, duration,
//! request id, ip, user agent) is queued. Health probes and metrics scrapes are left out so they
//! do not drown the log. The answer to a state change waits until its entry is committed (a
//! group commit shared with the other requests of the moment); other answers go out at once.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, web};
use domain::account::ActivityEntry;
use domain::clock::{Clock, SystemClock};
use domain::ids::ActivityId;

use super::{Action, ActivityQueue};
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
    let changes = changes_state(req.method());
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
    // A refused or failed change changed nothing; only a change that went through must not be
    // answered before its row is durable (a crash in between would lose the row).
    if changes && !(response.status().is_client_error() || response.status().is_server_error()) {
        queue.push_durable(entry).await;
    } else {
        queue.push(entry).await;
    }
    Ok(response)
}

/// Whether a request of this method may change what is stored (GET, HEAD, OPTIONS never do).
fn changes_state(method: &Method) -> bool {
    matches!(
        *method,
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Duration;

    use actix_web::middleware::from_fn;
    use actix_web::test::{TestRequest, call_service, init_service};
    use actix_web::{App, HttpResponse};
    use domain::RepoError;
    use domain::ports::MockActivityRepository;

    use super::*;
    use crate::activity::ActivityWriter;

    /// A repository whose commits fail as "unavailable" (so the writer retries) until `open`.
    fn gated(open: &Arc<AtomicBool>, committed: &Arc<AtomicUsize>) -> MockActivityRepository {
        let (open, committed) = (Arc::clone(open), Arc::clone(committed));
        let mut repo = MockActivityRepository::new();
        repo.expect_record().returning(move |batch| {
            if !open.load(Ordering::SeqCst) {
                return Err(RepoError::Unavailable(anyhow::anyhow!("not yet")));
            }
            committed.fetch_add(batch.len(), Ordering::SeqCst);
            Ok(batch.len())
        });
        repo
    }

    #[actix_web::test]
    async fn a_state_change_is_answered_only_once_its_activity_row_is_committed() {
        let (open, committed) = (Arc::default(), Arc::default());
        let metrics = service_metrics::Metrics::new(1, 16).unwrap();
        let (queue, writer) =
            ActivityWriter::spawn(gated(&open, &committed), metrics.activity_counters());
        let app = init_service(
            App::new()
                .app_data(web::Data::new(queue))
                .wrap(from_fn(record))
                .route("/things", web::get().to(HttpResponse::Ok))
                .route("/things", web::post().to(HttpResponse::Created))
                .route("/things/bad", web::post().to(HttpResponse::BadRequest)),
        )
        .await;
        let post = call_service(&app, TestRequest::post().uri("/things").to_request());
        let mut post = std::pin::pin!(post);
        // The writer cannot commit yet: the change is not answered meanwhile.
        let early = tokio::time::timeout(Duration::from_millis(150), &mut post).await;
        assert!(
            early.is_err(),
            "answered before its activity row was committed"
        );
        // Reads and refused changes are answered at once, their rows following later.
        let read = call_service(&app, TestRequest::get().uri("/things").to_request());
        let read = tokio::time::timeout(Duration::from_millis(100), read).await;
        assert_eq!(read.expect("a read waited").status(), 200);
        let bad = call_service(&app, TestRequest::post().uri("/things/bad").to_request());
        let bad = tokio::time::timeout(Duration::from_millis(100), bad).await;
        assert_eq!(bad.expect("a refused change waited").status(), 400);
        assert_eq!(committed.load(Ordering::SeqCst), 0);
        // Once the database takes the batch (the writer's next retry), the answer goes out, and
        // by then its row is committed.
        open.store(true, Ordering::SeqCst);
        let answered = tokio::time::timeout(Duration::from_secs(5), post).await;
        assert_eq!(answered.expect("never answered").status(), 201);
        assert!(committed.load(Ordering::SeqCst) >= 1);
        assert_eq!(writer.shutdown().await, 3);
    }
}
