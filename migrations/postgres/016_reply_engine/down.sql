ALTER TABLE reflection_message DROP COLUMN engine;
