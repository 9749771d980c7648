import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas/common.ts';
import { DomainName } from './digital-wallets.schemas.ts';

/**
 * The four Paze session operations (PazeSessionRequest, PazeMobileSessionCreateRequest,
 * PazeSessionReviewRequest, PazeSessionCompleteRequest and their answers). Paze's own camelCase
 * field names are kept: these bodies are handed to and from Paze's SDKs as they are.
 */

const Text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });
const SessionId = () => Text(255, 'The Paze session id (sessionId of the mobile session)');
const AccessToken = () => Text(4096, 'The accessToken of the mobile session');
const NETWORKS = ['VISA', 'MASTERCARD'] as const;
const TRANSACTION_TYPES = ['PURCHASE', 'CARD_ON_FILE', 'BOTH'] as const;

export const PazeSessionBody = Type.Object(
  {
    source: Type.Optional(
      StringEnum(['web', 'mobile'] as const, {
        default: 'web',
        description:
          "web: the configuration for Paze's JavaScript SDK; mobile: also starts a session for the mobile checkout",
      }),
    ),
    domain_name: Type.Optional(DomainName()),
  },
  {
    additionalProperties: false,
    title: 'PazeSessionRequest',
    description: 'domain_name is required when source is web',
  },
);
export type PazeSessionBody = Static<typeof PazeSessionBody>;

export const PazeSessionSchema = Type.Object(
  {
    id: Type.String({ description: 'The Paze client id' }),
    name: Type.String({ description: 'The Paze client name' }),
    profileId: Type.String({ description: "The merchant's Paze profile id" }),
    accessToken: Type.Optional(Type.String({ description: "Mobile: the session's access token" })),
    sessionId: Type.Optional(Type.String({ description: 'Mobile: the session id' })),
  },
  {
    additionalProperties: false,
    title: 'PazeSession',
    description: 'PazeWebSession, or PazeMobileSession (with accessToken and sessionId)',
  },
);
export type PazeSession = Static<typeof PazeSessionSchema>;

export const TransactionValue = Type.Object(
  {
    transactionCurrency: Type.String({ pattern: '^[A-Z]{3}$', format: 'iso-4217' }),
    transactionAmount: Type.String({
      pattern: '^\\d{1,10}(\\.\\d{1,2})?$',
      description: 'A decimal amount, e.g. "5.39"',
    }),
  },
  { additionalProperties: false, title: 'PazeTransactionValue' },
);
export type TransactionValue = Static<typeof TransactionValue>;

export const PazeCheckoutBody = Type.Object(
  {
    client: Type.Object(
      { id: Text(50), name: Text(255), profileId: Text(255) },
      { additionalProperties: false, description: 'As the session answered (id, name, profileId)' },
    ),
    sessionId: SessionId(),
    accessToken: AccessToken(),
    callbackURLScheme: Type.String({
      minLength: 1,
      maxLength: 40,
      pattern: '^[a-zA-Z][a-zA-Z0-9+.-]*$',
      description: "The app's URL scheme: the checkout returns to <scheme>://paze?code=…",
    }),
    intent: StringEnum(['REVIEW_AND_PAY', 'EXPRESS_CHECKOUT', 'ADD_CARD'] as const),
    transactionValue: Type.Optional(TransactionValue),
    transactionType: Type.Optional(StringEnum(TRANSACTION_TYPES)),
    shippingPreference: Type.Optional(StringEnum(['ALL', 'NONE'] as const)),
    billingPreference: Type.Optional(StringEnum(['ALL', 'ZIP_COUNTRY', 'NONE'] as const)),
    emailAddress: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
    phoneNumber: Type.Optional(Type.String({ pattern: '^\\+?[0-9]{4,15}$' })),
    cobrand: Type.Optional(
      Type.Array(
        Type.Object(
          { cobrandName: Text(255), benefitsOffered: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        { maxItems: 10 },
      ),
    ),
    acceptedShippingCountries: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z]{2}$', format: 'iso-3166-alpha-2' }), { maxItems: 250 }),
    ),
    acceptedPaymentCardNetworks: Type.Optional(Type.Array(StringEnum(NETWORKS), { minItems: 1, maxItems: 2 })),
    alwaysEnableCheckout: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'PazeMobileSessionCreateRequest' },
);
export type PazeCheckoutBody = Static<typeof PazeCheckoutBody>;

export const PazeCheckoutSchema = Type.Object(
  {
    pazeCheckoutUrl: Type.String({ description: 'The page the app opens for the buyer to choose a card' }),
    clientContext: Type.String(),
    ewSID: Type.String({ description: "Paze's id of the session" }),
    timestampISO8601: Type.String(),
  },
  { additionalProperties: false, title: 'PazeMobileSessionCreate' },
);
export type PazeCheckout = Static<typeof PazeCheckoutSchema>;

export const PazeReviewBody = Type.Object(
  {
    sessionId: SessionId(),
    code: Text(10240, 'The code the checkout returned to the app'),
    accessToken: AccessToken(),
  },
  { additionalProperties: false, title: 'PazeSessionReviewRequest' },
);
export type PazeReviewBody = Static<typeof PazeReviewBody>;

const PazeMobileNumberSchema = Type.Object(
  {
    countryCode: Type.String({ description: 'ITU country calling code, e.g. 1' }),
    phoneNumber: Type.String({ description: 'The number without the country code' }),
  },
  { additionalProperties: false, title: 'PazeMobileNumber' },
);

const PazeConsumerSchema = Type.Object(
  {
    firstName: Nullable(Type.String()),
    lastName: Nullable(Type.String()),
    fullName: Type.String(),
    emailAddress: Type.String(),
    mobileNumber: Nullable(PazeMobileNumberSchema),
    countryCode: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    languageCode: Nullable(Type.String({ description: 'ISO 639-1' })),
  },
  { additionalProperties: false, title: 'PazeConsumer' },
);

/** The lines, city, state and postal code both of Paze's addresses have. */
const AddressLines = {
  line1: Type.String(),
  line2: Type.Optional(Nullable(Type.String())),
  line3: Type.Optional(Nullable(Type.String())),
  city: Type.String(),
  state: Type.String(),
  zip: Type.String({ description: 'Postal code' }),
};

const PazeShippingAddressSchema = Type.Object(
  {
    ...AddressLines,
    countryCode: Type.String({ description: 'ISO 3166-1 alpha-2' }),
    deliveryContactDetails: Nullable(
      Type.Object(
        {
          contactFullName: Nullable(Type.String({ description: 'Who receives the delivery' })),
          contactPhoneNumber: Nullable(PazeMobileNumberSchema),
        },
        { additionalProperties: false, title: 'PazeDeliveryContactDetails' },
      ),
    ),
  },
  { additionalProperties: false, title: 'PazeShippingAddress' },
);

const PazeBillingAddressSchema = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String())),
    ...AddressLines,
    countryCode: Type.Optional(Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' }))),
  },
  { additionalProperties: false, title: 'PazeBillingAddress' },
);

export const PazeReviewSchema = Type.Object(
  {
    consumer: PazeConsumerSchema,
    shippingAddress: Nullable(PazeShippingAddressSchema),
    maskedCard: Type.Object(
      {
        panLastFour: Type.String(),
        paymentAccountReference: Type.String(),
        panExpirationMonth: Nullable(Type.String({ description: 'MM' })),
        panExpirationYear: Nullable(Type.String({ description: 'YYYY' })),
        paymentCardDescriptor: Type.String({
          description: 'The card product as the buyer knows it, e.g. Visa Signature',
        }),
        paymentCardType: Type.String({ description: 'CREDIT, DEBIT or PREPAID' }),
        paymentCardBrand: Type.String({ description: 'VISA, MASTERCARD or DISCOVER' }),
        paymentCardNetwork: Type.String({ description: 'VISA, MASTERCARD or DISCOVER' }),
        digitalCardData: Type.Object(
          {
            artUri: Type.String({ description: 'An image of the card to show the buyer' }),
            artHeight: Type.Integer({ description: 'Its height in pixels' }),
            artWidth: Type.Integer({ description: 'Its width in pixels' }),
          },
          { additionalProperties: false, title: 'PazeDigitalCardData' },
        ),
        billingAddress: Nullable(PazeBillingAddressSchema),
      },
      { additionalProperties: false, title: 'PazeMaskedCard' },
    ),
    links: Type.Object(
      { CHANGE_CARD: Nullable(Type.String()), CHANGE_SHIPPING_ADDRESS: Nullable(Type.String()) },
      { additionalProperties: false, title: 'PazeSessionReviewLinks' },
    ),
    code: Type.String({ description: 'The code to complete the session with' }),
  },
  { additionalProperties: false, title: 'PazeSessionReview' },
);
export type PazeReview = Static<typeof PazeReviewSchema>;

export const PazeCompleteBody = Type.Object(
  {
    sessionId: SessionId(),
    code: Text(10240),
    accessToken: AccessToken(),
    transactionType: StringEnum(TRANSACTION_TYPES),
    transactionOptions: Type.Optional(
      Type.Object(
        {
          billingPreference: Type.Optional(StringEnum(['ALL', 'ZIP_COUNTRY', 'NONE'] as const)),
          merchantCategoryCode: Type.Optional(Type.String({ pattern: '^\\d{4}$' })),
          payloadTypeIndicator: Type.Optional(StringEnum(['ID', 'PAYMENT'] as const)),
        },
        { additionalProperties: false },
      ),
    ),
    transactionValue: Type.Optional(TransactionValue),
    processingNetwork: Type.Optional(
      Type.String({ pattern: '^[A-Z_]{1,20}$', description: 'The network to process with, e.g. VISA' }),
    ),
    enhancedTransactionData: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 50 })),
  },
  { additionalProperties: false, title: 'PazeSessionCompleteRequest' },
);
export type PazeCompleteBody = Static<typeof PazeCompleteBody>;

export const PazeCompleteSchema = Type.Object(
  {
    payloadId: Type.String(),
    completeResponse: Type.String({
      description: 'The JWS to pay with: POST /transactions payment_method {method: paze, token: completeResponse}',
    }),
    securePayload: Type.String({
      description: "The securedPayload the completeResponse wraps (a JWE to the wallet's key)",
    }),
    clientContext: Type.String(),
    ewSID: Type.String(),
    timestampISO8601: Type.String(),
  },
  { additionalProperties: false, title: 'PazeSessionComplete' },
);
export type PazeComplete = Static<typeof PazeCompleteSchema>;
