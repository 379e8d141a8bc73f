-- The activity log gets a row per request, so what each row costs to write is what logging
-- costs (same change as SQLite's 009). Keyed by (at, id), the primary key also serves pruning
-- and the admin listing, so their own index goes: one index fewer to update per row.
--
-- The foreign key to users goes too: its per-row check (a trigger running a locking query)
-- was a third of PostgreSQL's work per logged request. The writer locks a batch's people once
-- per batch instead (FOR KEY SHARE, as the check did; see repos/activity.rs), and deleting a
-- person deletes their entries explicitly after the person (repos/user.rs).
--
-- Dropping the foreign key locks users as well as the log until the end of the transaction, so
-- it comes last: users stays readable while the new key is built. An instance older than this
-- migration (a rolling upgrade) deletes people through the cascade dropped here; the entries it
-- so leaves behind are deleted by the next `discovery-batch prune-activity`.
ALTER TABLE activity_log DROP CONSTRAINT activity_log_pkey;
ALTER TABLE activity_log ADD PRIMARY KEY (at, id);
DROP INDEX activity_log_at;
ALTER TABLE activity_log DROP CONSTRAINT activity_log_user_id_fkey;
