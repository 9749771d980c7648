import { Type, type Static } from 'typebox';
import type { DigitalWalletRow } from '../../db/schema-digital-wallets.ts';
import { DateTime, ItemList, Nullable, StringEnum, Uuid } from '../../http/schemas/common.ts';

export const DIGITAL_WALLET_TYPE = 'digital-wallet';
export const PROVIDERS = ['apple', 'google', 'click-to-pay', 'paze'] as const;

const Opt = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema));
const Text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });
/** A host name as a browser shows it (no scheme, port or path). */
export const DomainName = () =>
  Type.String({
    minLength: 1,
    maxLength: 253,
    pattern: '^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z]{2,63}$',
    description: 'A domain name such as shop.example.com',
  });
const Pem = (description: string) => Type.String({ minLength: 1, maxLength: 20_000, description });

const AddressSchema = Type.Object(
  {
    line1: Text(255),
    line2: Opt(Type.String({ maxLength: 255 })),
    city: Text(100),
    state_code: Type.String({
      pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$',
      description: 'ISO 3166-2 subdivision code, e.g. US-CA',
    }),
    postal_code: Text(50),
  },
  { additionalProperties: false, title: 'DigitalWalletAddress' },
);

/** The merchant's own wallet keys (an extension of the model; write-only, sealed by the vault). */
const keyFields = {
  payment_processing_private_key: Opt(
    Pem(
      "Apple Pay payment processing or Google Pay (direct tokenization) private key, PEM (EC P-256, PKCS#8), or a Paze wallet's RSA key (at least 2048 bits; the securedPayload is encrypted to its public key). With it this server decrypts the wallet's payment tokens itself. Write-only.",
    ),
  ),
  apple_merchant_identifier: Opt(
    Text(
      255,
      'Apple Pay merchant identifier (merchant.com.example); needed with an Apple payment processing key and for merchant sessions',
    ),
  ),
  google_merchant_id: Opt(
    Text(255, "Google Pay merchant id; tokens decrypted with the wallet's own key are made for merchant:<id>"),
  ),
  merchant_identity_certificate: Opt(
    Pem(
      'Apple Pay merchant identity certificate, PEM: production merchant sessions are requested from Apple over mutual TLS with it. Write-only.',
    ),
  ),
  merchant_identity_private_key: Opt(Pem('The private key of the merchant identity certificate, PEM. Write-only.')),
};

export const TOKEN_DECRYPTIONS = ['server', 'payment-service'] as const;
const TOKEN_DECRYPTION_DESCRIPTION =
  "Extension. Apple Pay and Google Pay: who decrypts the payment tokens. `server` (default): this server, with the wallet's payment_processing_private_key (or the sandbox's test keys). `payment-service`: the encrypted token is passed on to a payment service whose connector decrypts it with keys it holds (mock-card, adyen-card); routing skips the others.";
const TokenDecryption = () => StringEnum(TOKEN_DECRYPTIONS, { description: TOKEN_DECRYPTION_DESCRIPTION });

const merchantFields = {
  merchant_display_name: Opt(Text(1024)),
  merchant_url: Opt(Type.String({ format: 'uri', maxLength: 2000 })),
  merchant_country_code: Opt(Type.String({ pattern: '^[A-Z]{2}$' })),
  merchant_category_code: Opt(Type.String({ minLength: 4, maxLength: 4 })),
  address: Opt(AddressSchema),
  extra_configuration: Opt(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        "Provider specific settings. Paze: profile_id (the Paze profile of the merchant; required in production), client_id and client_name (the Paze client, when not the instance's PAZE_CLIENT_ID / PAZE_CLIENT_NAME), network_mid_list, network_name_list. Click to Pay: digital_payment_application_id",
    }),
  ),
};

export const CreateDigitalWalletBody = Type.Object(
  {
    provider: StringEnum(PROVIDERS),
    merchant_name: Text(1024, 'Name registered with the provider; not shown to the buyer'),
    accept_terms_and_conditions: Type.Boolean({
      description: "Must be true: the merchant accepts the provider's terms",
    }),
    domain_names: Type.Optional(
      Type.Array(DomainName(), {
        maxItems: 100,
        description: 'Deprecated: use POST /digital-wallets/{id}/domains (Apple Pay)',
      }),
    ),
    ...merchantFields,
    ...keyFields,
    token_decryption: Type.Optional(TokenDecryption()),
  },
  { additionalProperties: false, title: 'DigitalWalletCreate' },
);
export type CreateDigitalWalletBody = Static<typeof CreateDigitalWalletBody>;

export const UpdateDigitalWalletBody = Type.Object(
  {
    merchant_name: Opt(Text(1024)),
    domain_names: Opt(Type.Array(DomainName(), { maxItems: 100 })),
    ...merchantFields,
    ...keyFields,
    token_decryption: Type.Optional(TokenDecryption()),
  },
  {
    additionalProperties: false,
    title: 'DigitalWalletUpdate',
    description: 'Fields left out keep their value; null clears an optional field (merchant_name cannot be cleared)',
  },
);
export type UpdateDigitalWalletBody = Static<typeof UpdateDigitalWalletBody>;

export const DigitalWalletDomainBody = Type.Object(
  { domain_name: DomainName() },
  { additionalProperties: false, title: 'DigitalWalletDomain' },
);
export type DigitalWalletDomainBody = Static<typeof DigitalWalletDomainBody>;

export const DigitalWalletParams = Type.Object({
  digital_wallet_id: Uuid({ description: 'ID of the digital wallet' }),
});

export const DigitalWalletSchema = Type.Object(
  {
    type: Type.Literal(DIGITAL_WALLET_TYPE),
    id: Uuid(),
    merchant_account_id: Type.String(),
    provider: StringEnum(PROVIDERS),
    merchant_name: Type.String(),
    merchant_display_name: Nullable(Type.String()),
    merchant_url: Nullable(Type.String()),
    merchant_country_code: Nullable(Type.String()),
    merchant_category_code: Nullable(Type.String()),
    address: Nullable(AddressSchema),
    extra_configuration: Nullable(Type.Record(Type.String(), Type.Unknown())),
    domain_names: Type.Array(Type.String(), { description: 'Deprecated' }),
    active_certificate_count: Type.Integer({
      description: 'Apple Pay: merchant certificates in force (identity certificate, payment processing key)',
    }),
    pending_certificate_count: Type.Integer(),
    expired_certificate_count: Type.Integer(),
    fields: Nullable(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Click to Pay only: the digital payment application' }),
    ),
    apple_merchant_identifier: Nullable(Type.String()),
    google_merchant_id: Nullable(Type.String()),
    payment_processing_key_configured: Type.Boolean({
      description: "Whether this server decrypts the wallet's payment tokens with the merchant's own key",
    }),
    merchant_identity_configured: Type.Boolean({
      description: 'Apple Pay: whether a merchant identity certificate is configured for production merchant sessions',
    }),
    token_decryption: TokenDecryption(),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'DigitalWallet' },
);
export type DigitalWallet = Static<typeof DigitalWalletSchema>;

export const DigitalWalletsSchema = ItemList(DigitalWalletSchema, 'DigitalWallets');

/** The only way a wallet row becomes a response: no secret column reaches it. */
export function toDigitalWalletResource(row: DigitalWalletRow, now = new Date()): DigitalWallet {
  const secrets = {
    processingKey: row.payment_processing_key_configured,
    identity: row.identity_certificate_expires_at !== null,
  };
  const identityExpired = row.identity_certificate_expires_at !== null && row.identity_certificate_expires_at <= now;
  const apple = row.provider === 'apple';
  return {
    type: DIGITAL_WALLET_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    provider: row.provider,
    merchant_name: row.merchant_name,
    merchant_display_name: row.merchant_display_name,
    merchant_url: row.merchant_url,
    merchant_country_code: row.merchant_country_code,
    merchant_category_code: row.merchant_category_code,
    address: row.address as DigitalWallet['address'],
    extra_configuration: row.extra_configuration,
    domain_names: row.domain_names,
    active_certificate_count: apple ? Number(secrets.processingKey) + Number(secrets.identity && !identityExpired) : 0,
    pending_certificate_count: 0,
    expired_certificate_count: apple ? Number(secrets.identity && identityExpired) : 0,
    fields: row.fields,
    apple_merchant_identifier: row.apple_merchant_identifier,
    google_merchant_id: row.google_merchant_id,
    payment_processing_key_configured: secrets.processingKey,
    merchant_identity_configured: secrets.identity,
    token_decryption: row.token_decryption,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
