-- Stored gift cards (number and pin encrypted by the vault) and the gift card redemptions of
-- transactions. See decision 0043.

CREATE TABLE gift_cards (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  id                  uuid NOT NULL,
  buyer_id            uuid,
  bin                 text NOT NULL,
  sub_bin             text NOT NULL,
  last4               text NOT NULL,
  -- HMAC of the number under the merchant's fingerprint key: one stored copy of a card per account.
  fingerprint         text NOT NULL,
  -- Number and pin, AES-256-GCM under the merchant's data keys, each bound to this row.
  number_ciphertext   text NOT NULL,
  number_key_id       uuid NOT NULL,
  pin_ciphertext      text NOT NULL,
  pin_key_id          uuid NOT NULL,
  -- As the gift card service reported it when the card was stored.
  expiration_date     timestamptz(3),
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  -- Deleting a buyer detaches its gift cards, as it does its stored payment methods.
  FOREIGN KEY (merchant_account_id, buyer_id) REFERENCES buyers (merchant_account_id, id) ON DELETE SET NULL (buyer_id)
);
CREATE INDEX gift_cards_created_idx ON gift_cards (merchant_account_id, created_at DESC, id DESC);
CREATE INDEX gift_cards_buyer_idx ON gift_cards (merchant_account_id, buyer_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX gift_cards_fingerprint_key ON gift_cards (merchant_account_id, fingerprint);

CREATE TABLE gift_card_redemptions (
  merchant_account_id             text NOT NULL REFERENCES merchant_accounts (id),
  id                              uuid NOT NULL,
  -- No foreign key yet: the transactions table comes with the transaction engine.
  transaction_id                  uuid NOT NULL,
  gift_card_id                    uuid,
  -- Same HMAC as gift_cards.fingerprint, so cards given in full are accounted for too.
  fingerprint                     text NOT NULL,
  bin                             text NOT NULL,
  sub_bin                         text NOT NULL,
  last4                           text NOT NULL,
  amount                          bigint NOT NULL CHECK (amount >= 0),
  refunded_amount                 bigint NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
  status                          text NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'succeeded', 'failed', 'skipped')),
  gift_card_service_redemption_id text,
  error_code                      text,
  raw_error_code                  text,
  raw_error_message               text,
  created_at                      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at                      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, id),
  CHECK (refunded_amount <= amount),
  -- Deleting a stored gift card keeps the redemptions it funded (with bin, sub_bin and last4).
  FOREIGN KEY (merchant_account_id, gift_card_id) REFERENCES gift_cards (merchant_account_id, id) ON DELETE SET NULL (gift_card_id)
);
CREATE INDEX gift_card_redemptions_transaction_idx ON gift_card_redemptions (merchant_account_id, transaction_id, created_at, id);
-- The balance sum per card, and the transaction list filters gift_card_id and gift_card_last4.
CREATE INDEX gift_card_redemptions_fingerprint_idx ON gift_card_redemptions (merchant_account_id, fingerprint, status);
CREATE INDEX gift_card_redemptions_gift_card_idx ON gift_card_redemptions (merchant_account_id, gift_card_id);
CREATE INDEX gift_card_redemptions_last4_idx ON gift_card_redemptions (merchant_account_id, last4);
