-- Issue 57 (WAL per authorization), decision 0162: every time-ordered index is ascending.
--
-- A btree index is read as well backwards as forwards, so `ORDER BY created_at DESC, id DESC`
-- (and the keyset page's probe the other way) is served by an index on (…, created_at, id) scanned
-- backward exactly as by one declared DESC: same rows, same order (an ascending column's NULLs come
-- last, so read backward they come first, as in a DESC column), same plans. Where they differ is
-- writing. New rows carry the newest time, which in a DESC index is the left end of their group:
-- a full page there splits 50:50 and logs about 4 kB, and the older half stays half empty for
-- good. In an ascending index the newest row goes to the right end, and at the right end of the
-- index a full page splits at 90 %, logs about 1 kB and leaves full pages behind (measured on
-- PostgreSQL 15, 100,000 rows in time order: 36 bytes less WAL per row and index, the index 44 %
-- smaller). A deployment with one merchant account, the common case, gets that on every index
-- below; with several accounts, the account last in key order does, the others split as before.
--
-- The definitions are the ones in force (migrations 0002 to 0077) with DESC removed; nothing else
-- changes. src/db/index-order.test.ts keeps every later index ascending.

DROP INDEX account_updater_jobs_created_idx;
DROP INDEX api_key_pairs_created_idx;
DROP INDEX audit_logs_action_idx;
DROP INDEX audit_logs_created_idx;
DROP INDEX audit_logs_resource_type_idx;
DROP INDEX audit_logs_user_idx;
DROP INDEX blocklist_entries_keyset_idx;
DROP INDEX blocklist_entries_type_idx;
DROP INDEX buyer_shipping_details_buyer_idx;
DROP INDEX buyers_created_idx;
DROP INDEX gift_card_issuances_created_idx;
DROP INDEX gift_cards_buyer_idx;
DROP INDEX gift_cards_created_idx;
DROP INDEX inbound_webhook_events_received_idx;
DROP INDEX merchant_accounts_created_idx;
DROP INDEX monitoring_incidents_list_idx;
DROP INDEX monitoring_incidents_metric_idx;
DROP INDEX monitoring_metrics_list_idx;
DROP INDEX network_tokens_payment_method_idx;
DROP INDEX payment_links_created_idx;
DROP INDEX payment_links_currency_idx;
DROP INDEX payment_links_list_idx;
DROP INDEX payment_links_status_idx;
DROP INDEX payment_methods_buyer_idx;
DROP INDEX payment_methods_created_idx;
DROP INDEX payment_methods_external_idx;
DROP INDEX payment_methods_status_idx;
DROP INDEX payment_service_tokens_payment_method_idx;
DROP INDEX payment_services_list_idx;
DROP INDEX payment_services_method_idx;
DROP INDEX payouts_list_idx;
DROP INDEX payouts_status_idx;
DROP INDEX payouts_updated_idx;
DROP INDEX refunds_txn_idx;
DROP INDEX report_executions_list_idx;
DROP INDEX report_executions_report_idx;
DROP INDEX report_executions_status_idx;
DROP INDEX reports_enabled_idx;
DROP INDEX reports_list_idx;
DROP INDEX reports_schedule_idx;
DROP INDEX three_ds_scenarios_keyset_idx;
DROP INDEX transactions_buyer_idx;
DROP INDEX transactions_created_idx;
DROP INDEX transactions_disputed_idx;
DROP INDEX transactions_error_code_idx;
DROP INDEX transactions_in_flight_idx;
DROP INDEX transactions_list_idx;
DROP INDEX transactions_payment_link_idx;
DROP INDEX transactions_payment_service_idx;
DROP INDEX transactions_pending_review_idx;
DROP INDEX transactions_status_idx;
DROP INDEX vault_forward_configs_list_idx;
DROP INDEX webhook_deliveries_subscription_idx;
DROP INDEX webhook_subscriptions_list_idx;

CREATE INDEX account_updater_jobs_created_idx ON account_updater_jobs (merchant_account_id, created_at, id);
CREATE INDEX api_key_pairs_created_idx ON api_key_pairs (created_at, id);
CREATE INDEX audit_logs_action_idx ON audit_logs (merchant_account_id, action, created_at, id);
CREATE INDEX audit_logs_created_idx ON audit_logs (merchant_account_id, created_at, id);
CREATE INDEX audit_logs_resource_type_idx ON audit_logs (merchant_account_id, resource_type, created_at, id);
CREATE INDEX audit_logs_user_idx ON audit_logs (merchant_account_id, user_id, created_at, id);
CREATE INDEX blocklist_entries_keyset_idx ON blocklist_entries (merchant_account_id, created_at, id);
CREATE INDEX blocklist_entries_type_idx ON blocklist_entries (merchant_account_id, value_type, created_at, id);
CREATE INDEX buyer_shipping_details_buyer_idx ON buyer_shipping_details (merchant_account_id, buyer_id, created_at, id);
CREATE INDEX buyers_created_idx ON buyers (merchant_account_id, created_at, id);
CREATE INDEX gift_card_issuances_created_idx ON gift_card_issuances (merchant_account_id, created_at, id);
CREATE INDEX gift_cards_buyer_idx ON gift_cards (merchant_account_id, buyer_id, created_at, id);
CREATE INDEX gift_cards_created_idx ON gift_cards (merchant_account_id, created_at, id);
CREATE INDEX inbound_webhook_events_received_idx ON inbound_webhook_events (merchant_account_id, payment_service_id, received_at);
CREATE INDEX merchant_accounts_created_idx ON merchant_accounts (created_at, id);
CREATE INDEX monitoring_incidents_list_idx ON monitoring_incidents (merchant_account_id, created_at, id);
CREATE INDEX monitoring_incidents_metric_idx ON monitoring_incidents (merchant_account_id, metric_id, created_at, id) WHERE (metric_id IS NOT NULL);
CREATE INDEX monitoring_metrics_list_idx ON monitoring_metrics (merchant_account_id, created_at, id);
CREATE INDEX network_tokens_payment_method_idx ON network_tokens (merchant_account_id, payment_method_id, created_at, id);
CREATE INDEX payment_links_created_idx ON payment_links (merchant_account_id, created_at, id);
CREATE INDEX payment_links_currency_idx ON payment_links (merchant_account_id, currency, updated_at, id);
CREATE INDEX payment_links_list_idx ON payment_links (merchant_account_id, updated_at, id);
CREATE INDEX payment_links_status_idx ON payment_links (merchant_account_id, status, updated_at, id);
CREATE INDEX payment_methods_buyer_idx ON payment_methods (merchant_account_id, buyer_id, created_at, id);
CREATE INDEX payment_methods_created_idx ON payment_methods (merchant_account_id, created_at, id);
CREATE INDEX payment_methods_external_idx ON payment_methods (merchant_account_id, external_identifier, created_at, id);
CREATE INDEX payment_methods_status_idx ON payment_methods (merchant_account_id, status, created_at, id);
CREATE INDEX payment_service_tokens_payment_method_idx ON payment_service_tokens (merchant_account_id, payment_method_id, created_at, id);
CREATE INDEX payment_services_list_idx ON payment_services (merchant_account_id, is_deleted, created_at, id);
CREATE INDEX payment_services_method_idx ON payment_services (merchant_account_id, method, is_deleted, created_at, id);
CREATE INDEX payouts_list_idx ON payouts (merchant_account_id, created_at, id);
CREATE INDEX payouts_status_idx ON payouts (merchant_account_id, status, created_at, id);
CREATE INDEX payouts_updated_idx ON payouts (merchant_account_id, updated_at, id);
CREATE INDEX refunds_txn_idx ON refunds (merchant_account_id, transaction_id, created_at, id);
CREATE INDEX report_executions_list_idx ON report_executions (merchant_account_id, created_at, id);
CREATE INDEX report_executions_report_idx ON report_executions (merchant_account_id, report_id, created_at, id);
CREATE INDEX report_executions_status_idx ON report_executions (merchant_account_id, status, created_at, id);
CREATE INDEX reports_enabled_idx ON reports (merchant_account_id, schedule_enabled, created_at, id);
CREATE INDEX reports_list_idx ON reports (merchant_account_id, created_at, id);
CREATE INDEX reports_schedule_idx ON reports (merchant_account_id, schedule, created_at, id);
CREATE INDEX three_ds_scenarios_keyset_idx ON three_ds_scenarios (merchant_account_id, created_at, id);
CREATE INDEX transactions_buyer_idx ON transactions (merchant_account_id, buyer_id, updated_at) WHERE ((buyer_id IS NOT NULL) AND (intent_outcome IS NOT NULL));
CREATE INDEX transactions_created_idx ON transactions (merchant_account_id, created_at, id) WHERE (intent_outcome IS NOT NULL);
CREATE INDEX transactions_disputed_idx ON transactions (merchant_account_id, updated_at, id) WHERE disputed;
CREATE INDEX transactions_error_code_idx ON transactions (merchant_account_id, error_code, updated_at, id) WHERE (error_code IS NOT NULL);
CREATE INDEX transactions_in_flight_idx ON transactions (merchant_account_id, updated_at, id) WHERE (intent_outcome IS NULL);
CREATE INDEX transactions_list_idx ON transactions (merchant_account_id, updated_at, id) WHERE (intent_outcome IS NOT NULL);
CREATE INDEX transactions_payment_link_idx ON transactions (merchant_account_id, payment_link_id, updated_at, id) WHERE (payment_link_id IS NOT NULL);
CREATE INDEX transactions_payment_service_idx ON transactions (merchant_account_id, payment_service_id, updated_at) WHERE ((payment_service_id IS NOT NULL) AND (intent_outcome IS NOT NULL));
CREATE INDEX transactions_pending_review_idx ON transactions (merchant_account_id, updated_at, id) WHERE pending_review;
CREATE INDEX transactions_status_idx ON transactions (merchant_account_id, status, updated_at, id) WHERE (intent_outcome IS NOT NULL);
CREATE INDEX vault_forward_configs_list_idx ON vault_forward_configs (merchant_account_id, created_at, id);
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (merchant_account_id, subscription_id, created_at, id);
CREATE INDEX webhook_subscriptions_list_idx ON webhook_subscriptions (merchant_account_id, created_at, id);
