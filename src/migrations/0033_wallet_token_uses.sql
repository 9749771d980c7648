-- Wallet tokens pay once, and a wallet says who decrypts its tokens. See docs/digital-wallets.md.

-- One row per Apple Pay or Google Pay token a transaction of the merchant account used: a keyed
-- hash of the token's unique id (Apple header.transactionId; Google messageId, or the SHA-256 of the
-- signed message when a payment service decrypts the token). Written in the database transaction
-- that records the transaction, before any connector call: the primary key stops a second use of
-- the token, also when two requests race.
CREATE TABLE wallet_token_uses (
  merchant_account_id text NOT NULL REFERENCES merchant_accounts (id),
  token_hash          text NOT NULL,
  provider            text NOT NULL CHECK (provider IN ('apple', 'google', 'click-to-pay', 'paze')),
  transaction_id      uuid NOT NULL,
  -- The token's life plus a margin: the purge-wallet-token-uses job deletes the row after it.
  expires_at          timestamptz(3) NOT NULL,
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_account_id, token_hash),
  FOREIGN KEY (merchant_account_id, transaction_id) REFERENCES transactions (merchant_account_id, id) ON DELETE CASCADE
);
CREATE INDEX wallet_token_uses_transaction_idx ON wallet_token_uses (merchant_account_id, transaction_id);
CREATE INDEX wallet_token_uses_expires_idx ON wallet_token_uses (expires_at);

-- `server`: this server decrypts the wallet's tokens (its own keys, or the sandbox's);
-- `payment-service`: they are passed on encrypted to a payment service that holds the keys.
ALTER TABLE digital_wallets ADD COLUMN token_decryption text NOT NULL DEFAULT 'server' CHECK (token_decryption IN ('server', 'payment-service'));
