-- Request details in the activity log, a covering index for the rollup, and people keyed by
-- their identity provider's (issuer, subject) instead of their e-mail.
--
-- users is rebuilt (SQLite cannot drop the inline UNIQUE on email, the documented 12-step
-- way), and foreign keys must be off meanwhile: with them on, DROP TABLE users would first
-- delete every user and so, ON DELETE CASCADE, every row they own. PRAGMA foreign_keys is
-- ignored inside a transaction, so metadata.toml keeps diesel from wrapping this file in one
-- and the file opens its own.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;

-- Where a request came from, for the person's own activity view (NULL when unknown). First,
-- because it fails when 008 is applied already (another process that started at the same time,
-- or a crash before diesel recorded the version): the transaction then ends before users is
-- touched, and the connection is restored by migrations.rs.
ALTER TABLE activity_log ADD COLUMN ip TEXT;
ALTER TABLE activity_log ADD COLUMN user_agent TEXT;

-- The rollup sums minutes per (date, foundation) over one person's window of occurred_at: with
-- foundation and minutes in the index it never reads the table. The listing still uses the
-- (user_id, occurred_at) prefix.
DROP INDEX task_mapping_user_occurred;
CREATE INDEX task_mapping_user_occurred_rollup
    ON task_mapping (user_id, occurred_at, foundation, minutes);

-- The e-mail is refreshed at each sign-in, and two issuers may vouch for the same address, so
-- it stops being unique (it stays indexed for look-ups by e-mail).
CREATE TABLE users_new (
    id TEXT PRIMARY KEY NOT NULL,
    email TEXT NOT NULL,
    name TEXT,
    created_at TIMESTAMP NOT NULL,
    last_login_at TIMESTAMP,
    oidc_issuer TEXT NOT NULL,
    oidc_subject TEXT NOT NULL
);
-- No deployment exists yet; a development database may hold rows from before. They get an
-- identity of their own that no provider will ever present (so a sign-in creates a new user).
INSERT INTO users_new (id, email, name, created_at, last_login_at, oidc_issuer, oidc_subject)
    SELECT id, email, name, created_at, last_login_at, 'urn:discovery:pre-oidc', email FROM users;
DROP TABLE users;
ALTER TABLE users_new RENAME TO users;
CREATE UNIQUE INDEX users_oidc_identity ON users (oidc_issuer, oidc_subject);
CREATE INDEX users_email ON users (email);

COMMIT;
PRAGMA foreign_keys = ON;
