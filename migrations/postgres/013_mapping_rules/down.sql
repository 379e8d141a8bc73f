-- Back to every entry carrying its foundation: unmapped entries cannot be kept, so they go.
DROP TABLE mapping_rules;
DELETE FROM task_mapping WHERE foundation IS NULL;
CREATE INDEX task_mapping_user_foundation_occurred ON task_mapping (user_id, foundation, occurred_at);
ALTER TABLE task_mapping DROP CONSTRAINT task_mapping_pkey;
ALTER TABLE task_mapping ADD CONSTRAINT task_mapping_user_id_external_task_id_key
    UNIQUE (user_id, external_task_id);
ALTER TABLE task_mapping ADD CONSTRAINT task_mapping_pkey PRIMARY KEY (id);
ALTER TABLE task_mapping DROP CONSTRAINT task_mapping_mapped_when_founded;
ALTER TABLE task_mapping DROP COLUMN mapped_by;
ALTER TABLE task_mapping DROP COLUMN tags;
ALTER TABLE task_mapping ALTER COLUMN foundation SET NOT NULL;
