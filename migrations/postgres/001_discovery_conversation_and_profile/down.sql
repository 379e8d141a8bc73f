DROP TABLE discovery_profile;
DROP TABLE discovery_answer;
DROP TABLE discovery_conversation;
