-- Issue 48, item 0. Crash safety of gift card money and honest status queries at the simulators.
--
-- simulator_calls: what the built-in simulators (mock-card, the mock gift card service) received,
-- one row per money-moving call, keyed as a provider keys it (the idempotency key). A status query
-- answers from it: a call the simulator has no row of was never received (`not_found`), as a real
-- provider answers, so reconciliation after a crash fails or re-sends it instead of recording money
-- that never moved. Instance-wide (no merchant account): it is the simulated provider's own state.
CREATE TABLE simulator_calls (
  service         text NOT NULL,
  operation       text NOT NULL,
  idempotency_key text NOT NULL,
  -- The simulator's first answer to the call (the gift card service's outcome; no card data), or null.
  answer          jsonb,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (service, operation, idempotency_key)
);

-- A reversal (the whole rest of a redemption given back to the card: a cancel, a payment that
-- failed) is recorded before the gift card service is called: `pending` holds `reversal_amount`
-- in refunded_amount; `succeeded` keeps it; `failed` gave it back. A crash leaves `pending`, which
-- the reverse-gift-card-redemption job (enqueued with the cancel) or reconcile-gift-cards finishes.
ALTER TABLE gift_card_redemptions ADD COLUMN reversal_status text CHECK (reversal_status IN ('pending', 'succeeded', 'failed'));
ALTER TABLE gift_card_redemptions ADD COLUMN reversal_amount bigint CHECK (reversal_amount >= 0);

-- reconcile-gift-cards: redemptions still `created`, reversals still `pending`, and gift card
-- refunds still `processing`, oldest first (each set is small: only what a crash left open).
CREATE INDEX gift_card_redemptions_open_idx ON gift_card_redemptions (updated_at) WHERE status = 'created' OR reversal_status = 'pending';
CREATE INDEX refunds_gift_card_open_idx ON refunds (updated_at) WHERE status = 'processing' AND target_type = 'gift-card-redemption';
