ALTER TABLE discovery_profile DROP COLUMN long_term_goal_summary;
ALTER TABLE discovery_profile DROP COLUMN near_term_goal_summary;
ALTER TABLE discovery_conversation DROP COLUMN long_term_goal_raw;
ALTER TABLE discovery_conversation DROP COLUMN near_term_goal_raw;
