-- Discovery conversations, their answers, and the profile extracted from them.
-- users arrives in 002, so the user_id foreign keys of these two tables are added there.

CREATE TABLE discovery_conversation (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    completed_at TIMESTAMP
);
-- At most one conversation in progress per person.
CREATE UNIQUE INDEX discovery_conversation_one_in_progress
    ON discovery_conversation (user_id) WHERE completed_at IS NULL;
CREATE INDEX discovery_conversation_user_created ON discovery_conversation (user_id, created_at);

CREATE TABLE discovery_answer (
    conversation_id TEXT NOT NULL REFERENCES discovery_conversation (id) ON DELETE CASCADE,
    step INTEGER NOT NULL CHECK (step BETWEEN 1 AND 7),
    text TEXT NOT NULL,
    answered_at TIMESTAMP NOT NULL,
    PRIMARY KEY (conversation_id, step)
);

CREATE TABLE discovery_profile (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL UNIQUE,
    enneagram_type INTEGER NOT NULL CHECK (enneagram_type BETWEEN 1 AND 9),
    love_summary TEXT NOT NULL,
    strength_summary TEXT NOT NULL,
    mission_summary TEXT NOT NULL,
    vocation_summary TEXT NOT NULL,
    overlap_narrative TEXT NOT NULL,
    locked BOOLEAN NOT NULL DEFAULT FALSE,
    affirmed_at TIMESTAMP,
    version BIGINT NOT NULL CHECK (version >= 1),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    CHECK (NOT locked OR affirmed_at IS NOT NULL)
);
-- The batch run pages through the people whose profile is affirmed.
CREATE INDEX discovery_profile_locked_users ON discovery_profile (user_id) WHERE locked;
