ALTER TABLE discovery_profile DROP COLUMN sources;
