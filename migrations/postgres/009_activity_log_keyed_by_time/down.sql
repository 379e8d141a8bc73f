-- Entries of people who no longer exist are dropped: the foreign key would refuse them.
DELETE FROM activity_log WHERE user_id IS NOT NULL AND user_id NOT IN (SELECT id FROM users);
CREATE INDEX activity_log_at ON activity_log (at, id);
ALTER TABLE activity_log DROP CONSTRAINT activity_log_pkey;
ALTER TABLE activity_log ADD PRIMARY KEY (id);
ALTER TABLE activity_log ADD CONSTRAINT activity_log_user_id_fkey
    FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE;
