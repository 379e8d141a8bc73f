-- Rebuilds users with its unique e-mail again; foreign keys are off for the reason up.sql gives.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;

DROP INDEX task_mapping_user_occurred_rollup;
CREATE INDEX task_mapping_user_occurred ON task_mapping (user_id, occurred_at);

ALTER TABLE activity_log DROP COLUMN user_agent;
ALTER TABLE activity_log DROP COLUMN ip;

-- Fails while two people share an e-mail: reverting cannot merge them.
CREATE TABLE users_old (
    id TEXT PRIMARY KEY NOT NULL,
    email TEXT NOT NULL UNIQUE,
    name TEXT,
    created_at TIMESTAMP NOT NULL,
    last_login_at TIMESTAMP
);
INSERT INTO users_old (id, email, name, created_at, last_login_at)
    SELECT id, email, name, created_at, last_login_at FROM users;
DROP TABLE users;
ALTER TABLE users_old RENAME TO users;

COMMIT;
PRAGMA foreign_keys = ON;
