//! The service's rate limits (`RATE_LIMIT_*`): how many requests of each costly kind one client
//! address or one person may make in a window, each read as a per-minute limit (0: off) by the
//! `settings` crate's one rule.

use crate::{SettingError, Vars};

/// How many sign-in attempts, coach calls and other requests that make the service work for
/// the caller (rule changes, webhook tests, check-ins, entries stored) a caller may make (`RATE_LIMIT_*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimitSettings {
    /// `/api/auth/login`, `/callback` and `/dev-login` per client address per window (0: off).
    pub sign_in: u32,
    /// `POST /discovery/profile/me/reflect` per person per window (0: off).
    pub reflect: u32,
    /// `POST /discovery/conversation/me/complete` per person per window (0: off).
    pub complete: u32,
    /// `POST /integration/rules`, `PUT` and `DELETE /integration/rules/{id}` per person per
    /// window, one budget for the three (0: off). Each change queues a re-classification of
    /// the person's entries.
    pub rule_changes: u32,
    /// `POST /api/me/webhooks/{id}/test` per person per window (0: off). Each queues a `ping`.
    pub webhook_tests: u32,
    /// `POST /coaching/checkins` per person per window (0: off). Each writes a check-in and
    /// queues its e-mail and webhook events.
    pub checkins: u32,
    /// `PATCH /discovery/profile/me`, `POST .../affirm`, `.../reopen`, `.../reflect` and
    /// `.../revisions/{number}/restore` per person per window, one budget (0: off). Each may
    /// write a revision and queue a `profile.revised` event to every webhook of the person.
    pub profile_writes: u32,
    /// Time entries stored by `POST /integration/task-mappings` (one each) and
    /// `POST /integration/task-mappings/batch` (one per item) per person per window (0: off).
    pub entries: u32,
    /// The window the limits are counted in: one minute (the tests shorten it).
    pub window: std::time::Duration,
    /// Take the client's address from the last `X-Forwarded-For` entry instead of the peer
    /// (`RATE_LIMIT_TRUST_FORWARDED_FOR`), for sign-in limits and for the address sessions, the
    /// activity log and request logs record: only behind a reverse proxy that appends it, since
    /// a client can write any value there itself.
    pub trust_forwarded_for: bool,
}

impl RateLimitSettings {
    /// # Errors
    /// The first `RATE_LIMIT_*` that is not a limit (or a flag), named.
    pub fn from_vars(vars: &Vars<'_>) -> Result<Self, SettingError> {
        let per_minute = |name, default| vars.per_minute(name, default);
        Ok(Self {
            sign_in: per_minute("RATE_LIMIT_SIGN_IN_PER_MINUTE", 30)?,
            reflect: per_minute("RATE_LIMIT_REFLECT_PER_MINUTE", 20)?,
            complete: per_minute("RATE_LIMIT_COMPLETE_PER_MINUTE", 5)?,
            // A person classifying time in the dashboard adds, moves and deletes rules in quick
            // succession: one a second leaves room for that, and still bounds the jobs queued.
            rule_changes: per_minute("RATE_LIMIT_RULE_CHANGES_PER_MINUTE", 60)?,
            // A test is a click to see an endpoint answer; ten a minute is more than anyone
            // checking a receiver needs, and bounds the pings queued to a stranger's server.
            webhook_tests: per_minute("RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE", 10)?,
            // Manual check-ins are written by a person (or their assistant) now and then; the
            // batch writes the scheduled ones. Each may send an e-mail and webhook events.
            checkins: per_minute("RATE_LIMIT_CHECKINS_PER_MINUTE", 10)?,
            // A person editing their profile saves, affirms and reopens now and then; one a
            // second is far more than that, and bounds the events queued to their webhooks.
            profile_writes: per_minute("RATE_LIMIT_PROFILE_WRITES_PER_MINUTE", 60)?,
            // All of a burst is usable at once: a year of history at one entry every quarter
            // of an hour, day and night (35,040), imports in one go; past it, 50 batches of
            // 1,000 a minute.
            entries: per_minute("RATE_LIMIT_ENTRIES_PER_MINUTE", 50_000)?,
            window: std::time::Duration::from_secs(60),
            trust_forwarded_for: vars.flag("RATE_LIMIT_TRUST_FORWARDED_FOR", false)?,
        })
    }
}
