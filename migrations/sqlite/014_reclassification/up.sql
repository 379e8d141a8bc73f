-- Re-classification in the background (docs/api.md, "Mapping rules and unmapped time"). Same shape
-- as PostgreSQL's 014.
--
-- Each entry keeps what the rules compare, folded once when it is written (NFC, lower case),
-- so a job matches set-based in SQL and folds nothing: the label, the tags as
-- '<US>a<US>b<US>' (US = the unit separator, which tags never hold), and the external id only
-- where folding changes it. Entries written before this migration have match_tags NULL: a job
-- includes them whatever its scope and writes their keys.
ALTER TABLE task_mapping ADD COLUMN match_label TEXT;
ALTER TABLE task_mapping ADD COLUMN match_tags TEXT;
ALTER TABLE task_mapping ADD COLUMN match_id TEXT;

-- One queued or running job per person. `generation` grows with each rule change (a step
-- whose read saw an older one sets its work aside); `scope` is NULL for every candidate or a
-- JSON list of [kind, pattern] conditions; the job has decided every candidate up to
-- `resume_after` (an external id; NULL: none yet), `done` of `total` (NULL until counted).
CREATE TABLE reclassification (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    generation BIGINT NOT NULL,
    scope TEXT,
    resume_after TEXT,
    done BIGINT NOT NULL DEFAULT 0,
    total BIGINT
);
-- Whoever has entries the rules decide gets a job over all of them, which also writes their keys.
INSERT INTO reclassification (user_id, generation)
    SELECT DISTINCT user_id, 1
    FROM task_mapping
    WHERE mapped_by IS NULL OR mapped_by = 'rule';
