-- Notifications and webhooks (docs/api.md): the e-mail setting, webhook endpoints, and the durable
-- outbox. An event row is written in the same transaction as the change that caused it, with one
-- delivery row per channel (each subscribed webhook; e-mail when it is on). Workers claim due
-- deliveries (next_attempt_at) under a lease (lease_until); a crashed worker's claim simply expires.

CREATE TABLE notification_settings (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email_checkins BOOLEAN NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

-- events: the subscribed event types, space-separated. secret: kept as given, since every
-- delivery signs with it (it cannot be hashed); it is shown once and never listed.
CREATE TABLE webhooks (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    disabled_at TIMESTAMP,
    failures_in_a_row INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhooks_user ON webhooks (user_id, created_at);

-- payload: the exact body every delivery sends (signatures cover these bytes).
CREATE TABLE outbox_events (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    event_type TEXT NOT NULL
        CHECK (event_type IN ('checkin.created', 'profile.affirmed', 'profile.revised', 'ping')),
    payload TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE deliveries (
    id TEXT PRIMARY KEY NOT NULL,
    event_id TEXT NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    channel TEXT NOT NULL CHECK (channel IN ('webhook', 'email')),
    webhook_id TEXT REFERENCES webhooks (id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempt INTEGER NOT NULL DEFAULT 0,
    response_status INTEGER,
    error TEXT,
    created_at TIMESTAMP NOT NULL,
    last_attempt_at TIMESTAMP,
    next_attempt_at TIMESTAMP,
    lease_until TIMESTAMP,
    CHECK ((channel = 'webhook') = (webhook_id IS NOT NULL)),
    CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
-- What workers look for: pending deliveries by due time.
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
-- The delivery log of one endpoint, newest first.
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, created_at, id);
CREATE INDEX deliveries_event ON deliveries (event_id);
