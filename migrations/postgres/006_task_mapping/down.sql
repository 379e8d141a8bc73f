DROP TABLE task_mapping;
