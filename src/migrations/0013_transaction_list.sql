-- Indexes for the filters of GET /transactions that 0011 does not cover (decision 0065).
-- Low-selectivity filters (currency, country, method, scheme, payment
-- source, the booleans other than the two below, amounts) get none: they filter rows read in list
-- order from transactions_list_idx, which stops after one page. Each index leads with
-- merchant_account_id, and the JSON paths are written exactly as list-transactions.repo.ts writes them.

-- Fraud and support lookups by the buyer's IP address.
CREATE INDEX transactions_ip_idx ON transactions (merchant_account_id, ip_address) WHERE ip_address IS NOT NULL;
-- Declines by error code, newest update first.
CREATE INDEX transactions_error_code_idx ON transactions (merchant_account_id, error_code, updated_at DESC, id DESC) WHERE error_code IS NOT NULL;
-- payment_method_bin is a prefix match (6 digits also find 8-digit BINs): text_pattern_ops makes
-- LIKE 'digits%' a range scan whatever the collation.
CREATE INDEX transactions_bin_idx ON transactions (merchant_account_id, (payment_method->>'bin') text_pattern_ops) WHERE payment_method IS NOT NULL;
-- payment_method_label: for cards the last 4 digits, what a support agent is told.
CREATE INDEX transactions_label_idx ON transactions (merchant_account_id, (payment_method->>'label')) WHERE payment_method IS NOT NULL;
-- buyer_search on the display name (ignoring case); its other branches use the buyer external
-- identifier and e-mail indexes of 0011.
CREATE INDEX transactions_buyer_name_idx ON transactions (merchant_account_id, lower(buyer->>'display_name')) WHERE buyer IS NOT NULL;
-- Rare states a dashboard asks for on their own: small partial indexes in list order.
CREATE INDEX transactions_disputed_idx ON transactions (merchant_account_id, updated_at DESC, id DESC) WHERE disputed;
CREATE INDEX transactions_pending_review_idx ON transactions (merchant_account_id, updated_at DESC, id DESC) WHERE pending_review;

-- The planner ignores the statistics of partial indexes, so without these it guesses 0.5% of the
-- rows for each expression above (and for lower(buyer_email_address) of 0011): buyer_search, an OR
-- of three such guesses, then looked common enough to scan the whole list in order instead of
-- using the three indexes. Expression statistics (PostgreSQL 14+) give it the real distribution.
CREATE STATISTICS transactions_buyer_name_stats ON (lower(buyer->>'display_name')) FROM transactions;
CREATE STATISTICS transactions_buyer_email_stats ON (lower(buyer_email_address)) FROM transactions;
CREATE STATISTICS transactions_bin_stats ON ((payment_method->>'bin')) FROM transactions;
CREATE STATISTICS transactions_label_stats ON ((payment_method->>'label')) FROM transactions;
