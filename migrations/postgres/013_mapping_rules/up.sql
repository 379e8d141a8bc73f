-- Mapping rules and unmapped time (docs/api.md, "Mapping rules and unmapped time"): an entry may
-- come without a foundation and with tags; the person's rules then decide, and `mapped_by`
-- says whether the foundation came from the tracker ('client'), a rule ('rule'), or nobody
-- yet (NULL, unmapped). Same shape as SQLite's 013.
ALTER TABLE task_mapping ALTER COLUMN foundation DROP NOT NULL;
-- The tags as a JSON array of strings, written by the service in one canonical form, so equal
-- tag lists are equal text (the unmapped view groups by it).
ALTER TABLE task_mapping ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
-- Every entry so far was sent with its foundation. The default fills them without rewriting
-- the table, and is dropped right after: the service always says which.
ALTER TABLE task_mapping ADD COLUMN mapped_by TEXT DEFAULT 'client'
    CHECK (mapped_by IN ('client', 'rule'));
ALTER TABLE task_mapping ALTER COLUMN mapped_by DROP DEFAULT;
ALTER TABLE task_mapping ADD CONSTRAINT task_mapping_mapped_when_founded
    CHECK ((foundation IS NULL) = (mapped_by IS NULL));

-- Fewer B-trees per row, the cost of every upsert: the entry is found by (user_id,
-- external_task_id), which becomes the primary key, so the separate unique index and the index
-- on the random `id` go (`id` stays unique by construction, a UUIDv7, and nothing looks it up).
-- The (user_id, foundation, occurred_at) index goes too: the rollup index (user_id,
-- occurred_at, foundation, minutes) serves the listing filtered by foundation.
ALTER TABLE task_mapping DROP CONSTRAINT task_mapping_pkey;
ALTER TABLE task_mapping DROP CONSTRAINT task_mapping_user_id_external_task_id_key;
ALTER TABLE task_mapping ADD CONSTRAINT task_mapping_pkey PRIMARY KEY (user_id, external_task_id);
DROP INDEX task_mapping_user_foundation_occurred;

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
