-- Request details in the activity log, a covering index for the rollup, and people keyed by
-- their identity provider's (issuer, subject) instead of their e-mail (same order as SQLite).

-- Where a request came from, for the person's own activity view (NULL when unknown).
ALTER TABLE activity_log ADD COLUMN ip TEXT;
ALTER TABLE activity_log ADD COLUMN user_agent TEXT;

-- The rollup sums minutes per (date, foundation) over one person's window of occurred_at: with
-- foundation and minutes in the index it never reads the table. The listing still uses the
-- (user_id, occurred_at) prefix.
DROP INDEX task_mapping_user_occurred;
CREATE INDEX task_mapping_user_occurred_rollup
    ON task_mapping (user_id, occurred_at, foundation, minutes);

-- People are named for good by the identity provider's (issuer, subject); the e-mail is only
-- refreshed at each sign-in, and two issuers may vouch for the same address, so it stops being
-- unique (it stays indexed for look-ups by e-mail).
ALTER TABLE users ADD COLUMN oidc_issuer TEXT;
ALTER TABLE users ADD COLUMN oidc_subject TEXT;
-- No deployment exists yet; a development database may hold rows from before. They get an
-- identity of their own that no provider will ever present (so a sign-in creates a new user).
UPDATE users SET oidc_issuer = 'urn:discovery:pre-oidc', oidc_subject = email;
ALTER TABLE users ALTER COLUMN oidc_issuer SET NOT NULL;
ALTER TABLE users ALTER COLUMN oidc_subject SET NOT NULL;
CREATE UNIQUE INDEX users_oidc_identity ON users (oidc_issuer, oidc_subject);
ALTER TABLE users DROP CONSTRAINT users_email_key;
CREATE INDEX users_email ON users (email);
