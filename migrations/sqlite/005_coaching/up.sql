-- Coaching preferences (one row per person) and the check-ins that quote their goals back.

CREATE TABLE coaching_preferences (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    coaching_frequency TEXT NOT NULL CHECK (coaching_frequency IN ('weekly', 'biweekly', 'monthly')),
    coaching_style TEXT NOT NULL CHECK (coaching_style IN ('direct', 'warm', 'reflective')),
    misalignment_threshold DOUBLE PRECISION NOT NULL CHECK (misalignment_threshold BETWEEN 0 AND 1),
    friction_tolerance TEXT NOT NULL CHECK (friction_tolerance IN ('low', 'medium', 'high')),
    prefer_questions_over_directives BOOLEAN NOT NULL,
    time_of_day_preference TEXT NOT NULL
        CHECK (time_of_day_preference IN ('morning', 'afternoon', 'evening', 'any')),
    source TEXT NOT NULL CHECK (source IN ('derived', 'override')),
    updated_at TIMESTAMP NOT NULL
);

-- quoted_goals is a JSON array of strings. A response is either wholly there or absent.
CREATE TABLE coaching_checkin (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    message TEXT NOT NULL,
    quoted_goals TEXT NOT NULL,
    observation TEXT,
    origin TEXT NOT NULL CHECK (origin IN ('manual', 'batch')),
    created_at TIMESTAMP NOT NULL,
    responded_at TIMESTAMP,
    still_valid BOOLEAN,
    response_note TEXT,
    CHECK ((responded_at IS NULL) = (still_valid IS NULL)),
    CHECK (response_note IS NULL OR responded_at IS NOT NULL)
);
CREATE INDEX coaching_checkin_user_created ON coaching_checkin (user_id, created_at, id);
