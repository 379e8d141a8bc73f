ALTER TABLE discovery_profile DROP CONSTRAINT discovery_profile_user_id_fkey;
ALTER TABLE discovery_conversation DROP CONSTRAINT discovery_conversation_user_id_fkey;
DROP TABLE activity_log;
DROP TABLE refresh_tokens;
DROP TABLE sessions;
DROP TABLE users;
