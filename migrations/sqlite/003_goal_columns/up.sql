-- The goals as the person typed them (steps 6 and 7), and the profile's summaries of them.
-- NULL means not answered (conversation) or no goal stated (profile).
ALTER TABLE discovery_conversation ADD COLUMN near_term_goal_raw TEXT;
ALTER TABLE discovery_conversation ADD COLUMN long_term_goal_raw TEXT;
ALTER TABLE discovery_profile ADD COLUMN near_term_goal_summary TEXT;
ALTER TABLE discovery_profile ADD COLUMN long_term_goal_summary TEXT;
