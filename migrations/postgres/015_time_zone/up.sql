-- The person's time zone (docs/api.md, "Weeks and the person's time zone"): an IANA name, checked by
-- the service against its tz database before it is stored. Storage stays UTC; only the days and
-- weeks shown to the person are read in this zone. Existing people keep UTC, as before.
ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
