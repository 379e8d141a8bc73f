DROP TABLE reclassification;
ALTER TABLE task_mapping DROP COLUMN match_id;
ALTER TABLE task_mapping DROP COLUMN match_tags;
ALTER TABLE task_mapping DROP COLUMN match_label;
