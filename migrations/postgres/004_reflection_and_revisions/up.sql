-- The reflection dialogue and the numbered revisions every profile change leaves behind.

CREATE TABLE reflection_message (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    author TEXT NOT NULL CHECK (author IN ('coach', 'person')),
    text TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX reflection_message_user_created ON reflection_message (user_id, created_at, id);

-- snapshot is the profile as JSON text (type, triad and every prose field).
CREATE TABLE profile_revision (
    id TEXT PRIMARY KEY NOT NULL,
    profile_id TEXT NOT NULL REFERENCES discovery_profile (id) ON DELETE CASCADE,
    number INTEGER NOT NULL CHECK (number >= 1),
    origin TEXT NOT NULL CHECK (origin IN ('extraction', 'reflection', 'manual_edit')),
    snapshot TEXT NOT NULL,
    note TEXT,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (profile_id, number)
);
