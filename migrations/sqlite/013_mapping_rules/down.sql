-- Back to every entry carrying its foundation: unmapped entries cannot be kept, so they go.
DROP TABLE mapping_rules;
CREATE TABLE task_mapping_old (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    external_task_id TEXT NOT NULL,
    task_label TEXT,
    foundation TEXT NOT NULL
        CHECK (foundation IN ('love', 'strength', 'mission', 'vocation', 'short_term', 'long_term')),
    minutes INTEGER NOT NULL DEFAULT 0 CHECK (minutes BETWEEN 0 AND 1440),
    occurred_at TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    UNIQUE (user_id, external_task_id)
);
INSERT INTO task_mapping_old (id, user_id, external_task_id, task_label, foundation, minutes,
                              occurred_at, created_at, updated_at)
    SELECT id, user_id, external_task_id, task_label, foundation, minutes,
           occurred_at, created_at, updated_at
    FROM task_mapping WHERE foundation IS NOT NULL;
DROP TABLE task_mapping;
ALTER TABLE task_mapping_old RENAME TO task_mapping;
CREATE INDEX task_mapping_user_occurred_rollup
    ON task_mapping (user_id, occurred_at, foundation, minutes);
CREATE INDEX task_mapping_user_foundation_occurred ON task_mapping (user_id, foundation, occurred_at);
