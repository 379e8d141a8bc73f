-- Back to an id key, an index by time and the foreign key to users (entries of people who no
-- longer exist are dropped: the foreign key would refuse them).
CREATE TABLE activity_log_old (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
    at TIMESTAMP NOT NULL,
    action TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    status INTEGER NOT NULL CHECK (status BETWEEN 0 AND 999),
    source TEXT CHECK (source IN ('web', 'api', 'mcp')),
    duration_ms BIGINT NOT NULL CHECK (duration_ms >= 0),
    request_id TEXT NOT NULL,
    ip TEXT,
    user_agent TEXT
);
INSERT INTO activity_log_old
    (id, user_id, at, action, method, path, status, source, duration_ms, request_id, ip, user_agent)
    SELECT id, user_id, at, action, method, path, status, source, duration_ms, request_id, ip,
           user_agent
    FROM activity_log
    WHERE user_id IS NULL OR user_id IN (SELECT id FROM users);
DROP TABLE activity_log;
ALTER TABLE activity_log_old RENAME TO activity_log;
CREATE INDEX activity_log_user_at ON activity_log (user_id, at, id);
CREATE INDEX activity_log_at ON activity_log (at, id);
