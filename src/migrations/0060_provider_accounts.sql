-- Issue 53. A stored payment method that is an account at a provider, not a card: a PayPal
-- account vaulted by a PayPal payment with `store: true` (docs/connectors-paypal.md, "Payouts").
-- `provider_account_id`: the provider's id of the account (PayPal's payer id), which payouts send
-- to; `label`: what the resource shows as its label (the account's e-mail, already masked: the full
-- address is not kept, the payer id is what pays out).
ALTER TABLE payment_methods ADD COLUMN provider_account_id text;
ALTER TABLE payment_methods ADD COLUMN label text;

-- A payment with `store: true` whose method is approved on the provider's page (PayPal): the
-- account is stored when the approved payment is authorized, which happens after the request.
ALTER TABLE transactions ADD COLUMN store_on_approval boolean NOT NULL DEFAULT false;
