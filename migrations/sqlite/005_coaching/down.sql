DROP TABLE coaching_checkin;
DROP TABLE coaching_preferences;
