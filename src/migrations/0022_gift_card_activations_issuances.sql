-- Gift card activations and issued virtual gift cards (POST /gift-cards/activations and
-- /gift-cards/issuances). See decision 0044.

CREATE TABLE gift_card_activations (
  merchant_account_id             text NOT NULL REFERENCES merchant_accounts (id),
  -- Also the id of the stored gift card when the activation stored it (`store`).
  id                              uuid NOT NULL,
  -- Same HMAC as gift_cards.fingerprint: the simulator's balance of an activated card is its activation.
  fingerprint                     text NOT NULL,
  bin                             text NOT NULL,
  sub_bin                         text NOT NULL,
  last4                           text NOT NULL,
  amount                          bigint NOT NULL CHECK (amount >= 0),
  currency                        text NOT NULL,
  external_identifier             text,
  gift_card_id                    uuid,
  gift_card_service_activation_id text NOT NULL,
  expiration_date                 timestamptz(3),
  created_at                      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  -- Deleting the stored card keeps its activation (and so the simulated balance).
  FOREIGN KEY (merchant_account_id, gift_card_id) REFERENCES gift_cards (merchant_account_id, id) ON DELETE SET NULL (gift_card_id)
);
-- A card is activated once per merchant account: a concurrent second activation fails here.
CREATE UNIQUE INDEX gift_card_activations_fingerprint_key ON gift_card_activations (merchant_account_id, fingerprint);

CREATE TABLE gift_card_issuances (
  merchant_account_id                   text NOT NULL REFERENCES merchant_accounts (id),
  id                                    uuid NOT NULL,
  theme                                 text NOT NULL,
  amount                                bigint NOT NULL CHECK (amount >= 0),
  currency                              text NOT NULL,
  external_identifier                   text,
  gift_card_service_payment_issuance_id text NOT NULL,
  url                                   text NOT NULL,
  created_at                            timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                            timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id)
);
CREATE INDEX gift_card_issuances_created_idx ON gift_card_issuances (merchant_account_id, created_at DESC, id DESC);
