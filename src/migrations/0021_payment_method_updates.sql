-- PUT /payment-methods/{id}: the scheme's transaction id of the card's first customer-initiated
-- payment (with the scheme that issued it) and the merchant's transaction link id, kept for
-- merchant-initiated payments with the card. The API's PaymentMethod does not show them.
ALTER TABLE payment_methods ADD COLUMN scheme_transaction_id text;
ALTER TABLE payment_methods ADD COLUMN scheme_transaction_id_scheme text;
ALTER TABLE payment_methods ADD COLUMN transaction_link_id text;
