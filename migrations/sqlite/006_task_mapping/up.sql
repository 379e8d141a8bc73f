-- Time-tracker entries mapped to a foundation; a tracker may send the same entry again,
-- so (user_id, external_task_id) is unique and a repeat updates the row.
CREATE TABLE task_mapping (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    external_task_id TEXT NOT NULL,
    task_label TEXT,
    foundation TEXT NOT NULL
        CHECK (foundation IN ('love', 'strength', 'mission', 'vocation', 'short_term', 'long_term')),
    -- INTEGER, not BIGINT: SUM over BIGINT is NUMERIC, which the shared code path cannot read.
    minutes INTEGER NOT NULL DEFAULT 0 CHECK (minutes BETWEEN 0 AND 1440),
    occurred_at TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    UNIQUE (user_id, external_task_id)
);
-- The rollup and the listing scan one person's window of occurred_at.
CREATE INDEX task_mapping_user_occurred ON task_mapping (user_id, occurred_at);
CREATE INDEX task_mapping_user_foundation_occurred ON task_mapping (user_id, foundation, occurred_at);
