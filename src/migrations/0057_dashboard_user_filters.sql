-- Issue 52. Indexes of GET /users: the account's users newest first, by e-mail prefix, status and role.

-- Keyset order (created_at, id), alone and after the status filter.
CREATE INDEX dashboard_users_created_idx ON dashboard_users (created_at, id);
CREATE INDEX dashboard_users_status_created_idx ON dashboard_users (status, created_at, id);
-- The e-mail filter is a case-insensitive prefix (`lower(email) LIKE 'ada%'`): a range scan of this
-- index whatever the database's collation (text_pattern_ops), linear in the term's length.
CREATE INDEX dashboard_users_email_prefix_idx ON dashboard_users (lower(email) text_pattern_ops);
-- The users of an account (and of a role there): memberships by account, role, user.
CREATE INDEX dashboard_memberships_account_role_idx ON dashboard_memberships (merchant_account_id, role, user_id);
