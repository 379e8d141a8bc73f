-- People, their sign-in sessions with rotating refresh tokens, and the activity log.

CREATE TABLE users (
    id TEXT PRIMARY KEY NOT NULL,
    email TEXT NOT NULL UNIQUE,
    name TEXT,
    created_at TIMESTAMP NOT NULL,
    last_login_at TIMESTAMP
);

CREATE TABLE sessions (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    user_agent TEXT,
    ip TEXT,
    revoked_at TIMESTAMP
);
CREATE INDEX sessions_user_created ON sessions (user_id, created_at);

-- Only the SHA-256 of a refresh token is stored.
CREATE TABLE refresh_tokens (
    id TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    revoked_at TIMESTAMP
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

-- user_id is NULL for anonymous requests (sign-in, health checks).
CREATE TABLE activity_log (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
    at TIMESTAMP NOT NULL,
    action TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    status INTEGER NOT NULL CHECK (status BETWEEN 0 AND 999),
    source TEXT CHECK (source IN ('web', 'api', 'mcp')),
    duration_ms BIGINT NOT NULL CHECK (duration_ms >= 0),
    request_id TEXT NOT NULL
);
CREATE INDEX activity_log_user_at ON activity_log (user_id, at, id);
-- Pruning and the admin listing walk the log by time alone.
CREATE INDEX activity_log_at ON activity_log (at, id);
