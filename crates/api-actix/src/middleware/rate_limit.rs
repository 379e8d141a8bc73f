//! Rate limits: sign-in attempts (and refused API keys) per client address, and per signed-in
//! person the requests that make the service work for them — the costly coach calls (reflect,
//! complete), rule changes (each queues a re-classification), webhook tests (each queues a
//! `ping`), check-ins and profile writes (each may queue an event to every webhook) — each a
//! keyed GCRA limiter (`governor`). A request over its limit is answered 429 `rate_limited`
//! with `Retry-After` before any handler runs, so it changes nothing; the activity log sits
//! outside this middleware and still records it. The time entries a person stores are counted
//! by the handlers ([`RateLimits::check_entries`]): only they know how many a batch holds.
//!
//! Routes are matched here by method and route pattern rather than annotated one by one, so the
//! limits are in one place and the route files stay free of them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpRequest, ResponseError, web};
use domain::ids::UserId;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

use crate::auth::Caller;
use crate::auth::caller::{API_KEY_HEADER, Denied};
use crate::error::ApiError;
use crate::middleware::client_ip;
use settings::api::RateLimitSettings;

/// Sign-in requests, keyed by client address: no one is signed in yet.
const SIGN_IN: [(Method, &str); 3] = [
    (Method::GET, "/api/auth/login"),
    (Method::GET, "/api/auth/callback"),
    (Method::POST, "/api/auth/dev-login"),
];
const REFLECT: &[(Method, &str)] = &[(Method::POST, "/discovery/profile/me/reflect")];
const COMPLETE: &[(Method, &str)] = &[(Method::POST, "/discovery/conversation/me/complete")];
/// The three share one budget: moving a rule is as much work for the service as adding one.
const RULE_CHANGES: &[(Method, &str)] = &[
    (Method::POST, "/integration/rules"),
    (Method::PUT, "/integration/rules/{id}"),
    (Method::DELETE, "/integration/rules/{id}"),
];
const WEBHOOK_TESTS: &[(Method, &str)] = &[(Method::POST, "/api/me/webhooks/{id}/test")];
const CHECKINS: &[(Method, &str)] = &[(Method::POST, "/coaching/checkins")];
/// Every way a person changes their profile, one budget: each may write a revision and queue a
/// `profile.revised` event to each of their webhooks. Reflect also spends its own budget.
const PROFILE_WRITES: &[(Method, &str)] = &[
    (Method::PATCH, "/discovery/profile/me"),
    (Method::POST, "/discovery/profile/me/affirm"),
    (Method::POST, "/discovery/profile/me/reopen"),
    (Method::POST, "/discovery/profile/me/reflect"),
    (
        Method::POST,
        "/discovery/profile/me/revisions/{number}/restore",
    ),
];

/// How many checks of one limiter pass between clean-ups of the keys it no longer needs, so
/// memory stays bounded by recent callers without a sweep on every request.
const HOUSEKEEPING_EVERY: u64 = 4_096;

/// One keyed limit and its housekeeping counter.
struct Limit<K: std::hash::Hash + Eq + Clone> {
    limiter: DefaultKeyedRateLimiter<K>,
    checks: AtomicU64,
}

impl<K: std::hash::Hash + Eq + Clone> Limit<K> {
    /// `per_window` requests in each `window`, all of them usable at once (the burst), then one
    /// more each `window / per_window`. `None` when the limit is off (0).
    fn new(per_window: u32, window: Duration) -> Option<Self> {
        let burst = NonZeroU32::new(per_window)?;
        let quota = Quota::with_period(window / per_window)?.allow_burst(burst);
        Some(Self {
            limiter: DefaultKeyedRateLimiter::dashmap(quota),
            checks: AtomicU64::new(0),
        })
    }

    /// `Err(seconds)` to wait when `key` is over its limit; counts the request otherwise.
    fn check(&self, key: &K) -> Result<(), u64> {
        self.check_n(key, NonZeroU32::MIN)
    }

    /// Like [`Limit::check`] for `n` at once, all or none of them counted. More than the whole
    /// burst spends the whole burst: a full budget lets it through.
    fn check_n(&self, key: &K, n: NonZeroU32) -> Result<(), u64> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % HOUSEKEEPING_EVERY
            == HOUSEKEEPING_EVERY - 1
        {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        let verdict = match self.limiter.check_key_n(key, n) {
            Ok(verdict) => verdict,
            Err(governor::InsufficientCapacity(burst)) => NonZeroU32::new(burst)
                .map_or(Ok(()), |burst| {
                    self.limiter.check_key_n(key, burst).unwrap_or(Ok(()))
                }),
        };
        verdict.map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            // Whole seconds, rounded up: waiting that long is always enough.
            (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
        })
    }
}

/// One per-person limit and the routes (method and route pattern) that spend its budget.
struct PersonLimit {
    name: &'static str,
    routes: &'static [(Method, &'static str)],
    limit: Limit<UserId>,
}

impl PersonLimit {
    /// Whether `method` and the path could be one of the routes: a cheap look before the route
    /// table is searched for the pattern.
    fn may_take(&self, method: &Method, path: &str) -> bool {
        self.routes.iter().any(|(m, pattern)| {
            m == method && path.starts_with(pattern.split('{').next().unwrap_or(pattern))
        })
    }

    fn takes(&self, method: &Method, pattern: &str) -> bool {
        self.routes
            .iter()
            .any(|(m, p)| m == method && *p == pattern)
    }
}

/// The limits of the service (`RATE_LIMIT_*`), shared by every worker.
pub struct RateLimits {
    sign_in: Option<Limit<IpAddr>>,
    /// Only the limits that are on (a setting of 0 leaves its routes out).
    per_person: Vec<PersonLimit>,
    /// Time entries stored per person, counted by the handlers that store them.
    entries: Option<Limit<UserId>>,
    trust_forwarded_for: bool,
}

impl std::fmt::Debug for RateLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let per_person: Vec<&str> = self.per_person.iter().map(|l| l.name).collect();
        f.debug_struct("RateLimits")
            .field("sign_in", &self.sign_in.is_some())
            .field("per_person", &per_person)
            .field("entries", &self.entries.is_some())
            .field("trust_forwarded_for", &self.trust_forwarded_for)
            .finish()
    }
}

impl RateLimits {
    #[must_use]
    pub fn new(settings: &RateLimitSettings) -> Self {
        let per_person = [
            ("reflect", REFLECT, settings.reflect),
            ("complete", COMPLETE, settings.complete),
            ("rule_changes", RULE_CHANGES, settings.rule_changes),
            ("webhook_tests", WEBHOOK_TESTS, settings.webhook_tests),
            ("checkins", CHECKINS, settings.checkins),
            ("profile_writes", PROFILE_WRITES, settings.profile_writes),
        ]
        .into_iter()
        .filter_map(|(name, routes, per_window)| {
            Some(PersonLimit {
                name,
                routes,
                limit: Limit::new(per_window, settings.window)?,
            })
        })
        .collect();
        Self {
            sign_in: Limit::new(settings.sign_in, settings.window),
            per_person,
            entries: Limit::new(settings.entries, settings.window),
            trust_forwarded_for: settings.trust_forwarded_for,
        }
    }

    /// Counts `n` time entries the person is about to store; 429 `rate_limited` with
    /// `Retry-After` (nothing counted) when they are over their budget.
    ///
    /// # Errors
    /// [`ApiError::RateLimited`] past the person's `RATE_LIMIT_ENTRIES_PER_MINUTE`.
    pub fn check_entries(&self, user: &UserId, n: usize) -> Result<(), ApiError> {
        let (Some(limit), Some(n)) = (
            &self.entries,
            NonZeroU32::new(u32::try_from(n).unwrap_or(u32::MAX)),
        ) else {
            return Ok(());
        };
        limit.check_n(user, n).map_err(|retry_after_seconds| {
            tracing::info!(entries = n, retry_after_seconds, "entries rate limited");
            ApiError::RateLimited {
                retry_after_seconds,
            }
        })
    }

    /// `Err(seconds)` when the request is over the limit of its route; `Ok` for every route
    /// without one, and for per-person routes without a signed-in caller (the handler answers
    /// 401).
    fn check(&self, req: &ServiceRequest) -> Result<(), u64> {
        let method = req.method();
        // The path as the router matches it (percent-encoded letters decoded), so an encoded
        // spelling of a limited path cannot slip past.
        let path = req.match_info().as_str();
        let is = |(m, p): &(Method, &str)| m == method && *p == path;
        // A refused `X-API-Key` is a guess at a credential: it spends the address's sign-in
        // budget like a sign-in attempt, so keys cannot be tried at the speed of the network.
        if SIGN_IN.iter().any(is) || refused_api_key(req) {
            if let Some(limit) = &self.sign_in {
                return limit.check(&self.client_key(req.request()));
            }
            return Ok(());
        }
        if !self.per_person.iter().any(|l| l.may_take(method, path)) {
            return Ok(());
        }
        // The route pattern (`/integration/rules/{id}`) the router will match, looked up in
        // its own table on the decoded path: every id shares the person's budget.
        // (`HttpRequest::match_pattern` reads the raw path before routing, and is kept by
        // `route_pattern` for the labels of metrics and activity, so it is not used here.)
        let Some(pattern) = req.request().resource_map().match_pattern(path) else {
            return Ok(());
        };
        // Every limit of the route is spent (reflect: its own and the profile writes').
        self.per_person
            .iter()
            .filter(|l| l.takes(method, &pattern))
            .try_for_each(|person_limit| Self::per_person(&person_limit.limit, req))
    }

    fn per_person(limit: &Limit<UserId>, req: &ServiceRequest) -> Result<(), u64> {
        let caller = req.extensions().get::<Caller>().copied();
        match caller {
            Some(caller) => limit.check(&caller.user_id),
            None => Ok(()),
        }
    }

    /// Who is signing in (see [`client_ip::of`]). IPv6 callers are keyed by their /64, which
    /// one host usually owns.
    fn client_key(&self, req: &HttpRequest) -> IpAddr {
        let ip = client_ip::of(req, self.trust_forwarded_for)
            // Without a peer address (not over TCP) every such caller shares one budget.
            .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        network_of(ip)
    }
}

/// Whether the request carried an `X-API-Key` that authentication refused.
fn refused_api_key(req: &ServiceRequest) -> bool {
    req.headers().contains_key(API_KEY_HEADER)
        && matches!(
            req.extensions().get::<Denied>(),
            Some(Denied::Unauthenticated)
        )
}

/// The key of an address: IPv4 as it is (also when written IPv4-mapped), IPv6 by its /64.
fn network_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
        },
    }
}

/// Refuses a request over its limit with 429 `rate_limited` and `Retry-After`; runs after
/// authentication (it needs the caller) and inside the activity log (which records the 429).
pub async fn limit<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, Error> {
    let verdict = req
        .app_data::<web::Data<RateLimits>>()
        .map_or(Ok(()), |limits| limits.check(&req));
    match verdict {
        Ok(()) => next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body),
        Err(retry_after_seconds) => {
            tracing::info!(
                method = %req.method(),
                path = req.path(),
                retry_after_seconds,
                "rate limited"
            );
            let response = ApiError::RateLimited {
                retry_after_seconds,
            }
            .error_response();
            Ok(req.into_response(response).map_into_right_body())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_callers_share_their_64_and_mapped_ipv4_is_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(network_of(a), network_of(b));
        assert_ne!(network_of(a), network_of(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(network_of(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn a_limit_allows_its_burst_then_names_a_whole_second_wait() {
        let limit = Limit::new(2, Duration::from_secs(60)).unwrap();
        assert!(limit.check(&1).is_ok());
        assert!(limit.check(&1).is_ok());
        let wait = limit.check(&1).unwrap_err();
        assert!((29..=30).contains(&wait), "{wait}");
        assert!(limit.check(&2).is_ok(), "another key has its own budget");
        assert!(Limit::<u8>::new(0, Duration::from_secs(60)).is_none());
    }

    #[test]
    fn many_at_once_are_counted_together_and_more_than_the_burst_spends_it_all() {
        let limit = Limit::new(1_000, Duration::from_secs(60)).unwrap();
        let n = |n| NonZeroU32::new(n).unwrap();
        assert!(limit.check_n(&1, n(600)).is_ok());
        let wait = limit.check_n(&1, n(600)).unwrap_err();
        assert!(
            (12..=13).contains(&wait),
            "200 more are due in 12 s: {wait}"
        );
        assert!(
            limit.check_n(&1, n(400)).is_ok(),
            "none of the 600 was counted"
        );
        assert!(
            limit.check_n(&2, n(5_000)).is_ok(),
            "a full budget lets it by"
        );
        assert!(limit.check_n(&2, n(1)).is_err(), "and is spent");
    }
}
