DROP TABLE profile_revision;
DROP TABLE reflection_message;
