-- Least privilege (docs/api.md): what a personal key may do, space-separated ("integration coaching"),
-- and when it stops working (NULL: when revoked). Keys made before scopes keep all three.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'integration profile:read coaching';
ALTER TABLE api_keys ADD COLUMN expires_at TIMESTAMP;
