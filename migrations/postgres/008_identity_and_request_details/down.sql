DROP INDEX task_mapping_user_occurred_rollup;
CREATE INDEX task_mapping_user_occurred ON task_mapping (user_id, occurred_at);

ALTER TABLE activity_log DROP COLUMN user_agent;
ALTER TABLE activity_log DROP COLUMN ip;

-- Fails while two people share an e-mail: reverting cannot merge them.
DROP INDEX users_email;
ALTER TABLE users ADD CONSTRAINT users_email_key UNIQUE (email);
DROP INDEX users_oidc_identity;
ALTER TABLE users DROP COLUMN oidc_subject;
ALTER TABLE users DROP COLUMN oidc_issuer;
