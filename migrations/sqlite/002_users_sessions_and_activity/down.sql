DROP TABLE activity_log;
DROP TABLE refresh_tokens;
DROP TABLE sessions;
DROP TABLE users;
