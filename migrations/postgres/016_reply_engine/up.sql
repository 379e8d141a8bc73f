-- Which engine wrote a coach's message (docs/api.md, "Reflection"): `offline` (the service's own
-- coach, also when it stood in for a model reply that told the person something resting on
-- nothing they wrote) or `model`. NULL for the person's messages and for coach messages stored
-- before engines were recorded.
ALTER TABLE reflection_message ADD COLUMN engine TEXT;
