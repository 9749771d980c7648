-- Issue 52. The roles of an API key pair (slugs of GET /roles, `role_ids` at creation): its tokens
-- get at most these roles' scopes. Null: no roles were given, and a token has the scopes it claims,
-- as before.
ALTER TABLE api_key_pairs ADD COLUMN role_slugs text[];
