DROP TABLE deliveries;
DROP TABLE outbox_events;
DROP TABLE webhooks;
DROP TABLE notification_settings;
