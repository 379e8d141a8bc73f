-- Mapping rules and unmapped time (docs/api.md, "Mapping rules and unmapped time"): an entry may
-- come without a foundation and with tags; the person's rules then decide, and `mapped_by`
-- says whether the foundation came from the tracker ('client'), a rule ('rule'), or nobody
-- yet (NULL, unmapped). Same shape as PostgreSQL's 013.
--
-- task_mapping is rebuilt: SQLite cannot drop a NOT NULL. Nothing references task_mapping, so
-- foreign keys can stay on and diesel's transaction is enough.
--
-- Fewer B-trees per row, the cost of every upsert: the entry is found by (user_id,
-- external_task_id), which becomes the primary key of a WITHOUT ROWID table, so the table *is*
-- that index, and the separate unique index and the index on the random `id` go (`id` stays
-- unique by construction, a UUIDv7, and nothing looks it up). The (user_id, foundation,
-- occurred_at) index goes too: the rollup index (user_id, occurred_at, foundation, minutes)
-- serves the listing filtered by foundation.
CREATE TABLE task_mapping_new (
    id TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    external_task_id TEXT NOT NULL,
    task_label TEXT,
    foundation TEXT
        CHECK (foundation IN ('love', 'strength', 'mission', 'vocation', 'short_term', 'long_term')),
    -- INTEGER, not BIGINT: SUM over BIGINT is NUMERIC, which the shared code path cannot read.
    minutes INTEGER NOT NULL DEFAULT 0 CHECK (minutes BETWEEN 0 AND 1440),
    occurred_at TIMESTAMP NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    -- The tags as a JSON array of strings, written by the service in one canonical form, so
    -- equal tag lists are equal text (the unmapped view groups by it).
    tags TEXT NOT NULL DEFAULT '[]',
    mapped_by TEXT CHECK (mapped_by IN ('client', 'rule')),
    CONSTRAINT task_mapping_mapped_when_founded CHECK ((foundation IS NULL) = (mapped_by IS NULL)),
    PRIMARY KEY (user_id, external_task_id)
) WITHOUT ROWID;
-- Every entry so far was sent with its foundation.
INSERT INTO task_mapping_new (id, user_id, external_task_id, task_label, foundation, minutes,
                              occurred_at, created_at, updated_at, tags, mapped_by)
    SELECT id, user_id, external_task_id, task_label, foundation, minutes,
           occurred_at, created_at, updated_at, '[]', 'client'
    FROM task_mapping;
DROP TABLE task_mapping;
ALTER TABLE task_mapping_new RENAME TO task_mapping;
CREATE INDEX task_mapping_user_occurred_rollup
    ON task_mapping (user_id, occurred_at, foundation, minutes);

-- A person's rules, first match by position (1, 2, ... with no gaps).
CREATE TABLE mapping_rules (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    position INTEGER NOT NULL CHECK (position >= 1),
    match_kind TEXT NOT NULL
        CHECK (match_kind IN ('label_contains', 'label_equals', 'tag', 'external_task_id_prefix')),
    pattern TEXT NOT NULL,
    foundation TEXT NOT NULL
        CHECK (foundation IN ('love', 'strength', 'mission', 'vocation', 'short_term', 'long_term')),
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX mapping_rules_user_position ON mapping_rules (user_id, position);
