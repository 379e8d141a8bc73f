-- The person's own words each profile field rests on (docs/api.md, Profile: Provenance), as JSON:
-- {"love_summary": [{"step": 1, "quote": "..."}], ...}. Profiles made before it rest on none.
ALTER TABLE discovery_profile ADD COLUMN sources TEXT NOT NULL DEFAULT '{}';
