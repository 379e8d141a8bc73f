-- The activity log gets a row per request, so what each row costs to write is what logging
-- costs. It is now stored in (at, id) order: the table itself serves pruning and the admin
-- listing, which needed an index of their own before, and one b-tree fewer is written per row.
--
-- It also loses its foreign key to users. The writer checks a batch's people once per batch
-- instead of once per row (see repos/activity.rs), and deleting a person deletes their
-- entries explicitly (repos/user.rs), so no row of a deleted person is left either way.
CREATE TABLE activity_log_new (
    id TEXT NOT NULL,
    user_id TEXT,
    at TIMESTAMP NOT NULL,
    action TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    status INTEGER NOT NULL CHECK (status BETWEEN 0 AND 999),
    source TEXT CHECK (source IN ('web', 'api', 'mcp')),
    duration_ms BIGINT NOT NULL CHECK (duration_ms >= 0),
    request_id TEXT NOT NULL,
    ip TEXT,
    user_agent TEXT,
    PRIMARY KEY (at, id)
) WITHOUT ROWID;
INSERT INTO activity_log_new
    (id, user_id, at, action, method, path, status, source, duration_ms, request_id, ip, user_agent)
    SELECT id, user_id, at, action, method, path, status, source, duration_ms, request_id, ip,
           user_agent
    FROM activity_log;
DROP TABLE activity_log;
ALTER TABLE activity_log_new RENAME TO activity_log;
CREATE INDEX activity_log_user_at ON activity_log (user_id, at, id);
