/**
 * The payment connector contract. A connector speaks to one payment service (a provider, or the
 * built-in simulators) in our own normalized types. Connectors never touch the database, the job
 * queue or the vault: services hand them plain inputs, with card data only when the vault has
 * released it for that one call. A decline is an outcome, not an exception; `ConnectorError` is
 * for technical failure only (STYLE E5).
 */

import type { CallBase, ResponseFacts } from './connector-base.ts';
import type { ParseInboundWebhook } from './connector-webhooks.ts';
import type { PayoutOutcome, PayoutRequest, PayoutSyncOutcome, PayoutSyncRequest } from './connector-payouts.ts';
import type { FetchSettlements } from './connector-settlements.ts';
import type { SimulateEvents } from './connector-simulations.ts';

/** Static description of a connector: what `GET /payment-service-definitions` publishes. */
export interface ConnectorDefinition {
  /** `<provider>-<method>`, e.g. `mock-card`. */
  id: string;
  displayName: string;
  /** The method enum value this definition processes. */
  method: string;
  /** Mode enum value: `card`, `redirect`, `gift-card`, ... */
  mode: 'card' | 'redirect' | 'applepay' | 'googlepay' | 'checkout-session' | 'click-to-pay' | 'gift-card' | 'bank';
  /** Credential fields a payment service of this definition is configured with. */
  fields: DefinitionField[];
  reportingFields: DefinitionField[];
  supportedCurrencies: string[];
  supportedCountries: string[];
  iconUrl: string | null;
  capabilities: ConnectorCapabilities;
  supportedIntegrationClients: IntegrationClient[] | null;
  configuration: {
    approval_ui_target: 'new_window' | 'any';
    approval_ui_height: string;
    approval_ui_width: string;
    cart_items_limit: number;
    cart_items_required: boolean;
    cart_items_should_match_amount: boolean;
  };
}

export interface DefinitionField {
  key: string;
  display_name: string;
  required: boolean;
  format: 'text' | 'multiline' | 'number' | 'timezone' | 'boolean';
  /** Secret values are stored encrypted and never returned. */
  secret: boolean;
  /**
   * The field takes part in credential verification: `verifyCredentials` checks its value with
   * the payment service (or, for the simulators, as the simulated service would), not only its
   * form. A field that is not verifiable is used as given (a webhook secret, a preference).
   */
  verifiable: boolean;
}

/** What a connector can do; routing and the transaction rules read these. */
export interface ConnectorCapabilities {
  /** Capture an authorization in several parts (`final: false`). */
  multiCapture: boolean;
  /** Capture more than the authorized amount. */
  overCapture: boolean;
  /** Capture less than the authorized amount. */
  partialCapture: boolean;
  /** Refund in several parts. */
  partialRefund: boolean;
  void: boolean;
  /** Cancel a transaction still awaiting buyer approval or processing. */
  cancel: boolean;
  /** Ask the provider for the current status (`POST /transactions/{id}/sync`, reconciliation). */
  sync: boolean;
  /** Create payment service tokens (gateway tokens) for stored cards. */
  tokenize: boolean;
  /** Send funds to a card (`payout`); published as the `payouts` feature. */
  payout: boolean;
  threeDSecure: boolean;
  networkTokens: boolean;
  /** Authorize with the buyer redirected to an approval page. */
  redirect: boolean;
  /** Sessions (`POST /payment-services/{id}/sessions`). */
  sessions: boolean;
  /** Raise an authorization's amount (`POST /transactions/{id}/authorization/increment`); published as `incremental_authorization`. */
  incrementalAuthorization: boolean;
  /**
   * The wallets whose tokens the connector takes encrypted (a `wallet-token` instrument) and has the
   * provider decrypt with keys it holds; absent or empty: none. Routing skips a connector without
   * the wallet when the merchant's wallet passes its tokens on (`token_decryption: payment-service`).
   */
  encryptedWalletTokens?: ReadonlyArray<'apple' | 'google'>;
  /**
   * The provider authenticates cards itself (3DS through its own page, the buyer sent there when
   * the issuer asks). In production, where the built-in 3DS server (a sandbox simulation) never
   * runs, a payment service with 3DS enabled needs this or the merchant's own `three_d_secure_data`.
   */
  providerAuthentication?: boolean;
}

/**
 * Per-connection capture settings. Over-capture is allowed by the merchant account's
 * `over_capture_amount` / `over_capture_percentage` when the connector has the capability.
 */
export interface CaptureRules {
  multiCapture: boolean;
  /** The connection may raise an authorization (with the `incrementalAuthorization` capability). */
  incrementalAuthorization: boolean;
}

/** The payment instrument of one authorization, as the connector receives it. */
export type Instrument =
  | { kind: 'card'; number: string; expirationDate: string; securityCode: string | null; scheme: string | null }
  /** A network token; from a wallet (Apple Pay, Google Pay CRYPTOGRAM_3DS) the device token with its cryptogram and ECI. */
  | {
      kind: 'network-token';
      token: string;
      expirationDate: string;
      cryptogram: string | null;
      eci?: string | null;
      scheme: string | null;
    }
  | { kind: 'payment-service-token'; token: string }
  /**
   * An Apple Pay or Google Pay token as the wallet made it, still encrypted, for a connector whose
   * provider decrypts it (`capabilities.encryptedWalletTokens`). Apple: the JSON text of
   * `paymentData`; Google: the token's JSON text. `scheme`: the request's `card_scheme`, if any.
   */
  | { kind: 'wallet-token'; provider: 'apple' | 'google'; token: string; scheme: string | null }
  | { kind: 'redirect'; method: string; redirectUrl: string; country: string; currency: string };

/** 3DS authentication data passed to the provider with the authorization. */
export interface ThreeDSecureData {
  version: string;
  cavv: string | null;
  eci: string | null;
  directoryResponse: string | null;
  authenticationResponse: string | null;
}

export interface AuthorizeRequest extends CallBase {
  /** Our short reference (the transaction's reconciliation id). */
  reference: string;
  amount: number;
  currency: string;
  country: string | null;
  /** `capture`: authorize and capture in one call. */
  intent: 'authorize' | 'capture';
  instrument: Instrument;
  merchantInitiated: boolean;
  isSubsequentPayment: boolean;
  paymentSource: string;
  /**
   * A merchant-initiated payment only: the scheme's transaction id of the customer-initiated
   * payment it follows (the request's `previous_scheme_transaction_id`, else the stored card's
   * `scheme_transaction_id`), from whichever provider answered it. A connector whose provider
   * takes it sends it (docs/connectors.md, "Network transaction ids"); null or absent: none known,
   * and always for a customer-initiated payment.
   */
  previousSchemeTransactionId?: string | null;
  threeDSecure: ThreeDSecureData | null;
  /**
   * Step-up authentication (docs/routing.md): the issuer declined the last attempt asking for
   * authentication, so a connector whose provider authenticates cards itself
   * (`capabilities.providerAuthentication`) asks it to run 3DS now, whatever its own rules would
   * decide (Stripe `request_three_d_secure: any`, Adyen `attemptAuthentication: always`,
   * Checkout.com `3ds.enabled`); the buyer is sent to the provider's page. Absent: false.
   */
  requestThreeDs?: boolean;
  /** Where the buyer's approval page lives (redirect flows). */
  approvalBaseUrl: string;
  /** The merchant account (simulators build their approval page address with it). */
  merchantAccountId?: string;
  /** Where the buyer returns after an approval page (redirect flows, 3DS). */
  redirectUrl?: string | null;
  /**
   * The transaction's buyer (the guest buyer given, or the stored buyer's snapshot), for a provider
   * that needs the payer named (dLocal PIX: name, email and CPF/CNPJ); null or absent: none given.
   */
  buyer?: AuthorizeBuyer | null;
  /** The transaction's `cart_items`, for a provider that needs the order's lines (Klarna); null or absent: none given. */
  cartItems?: CartLine[] | null;
  /**
   * Our inbound webhook address of the payment service (`inboundWebhookUrl`), for a provider that
   * takes its notification address with each request (dLocal's `notification_url`).
   */
  notificationUrl?: string | null;
}

/** The buyer of a payment, as the transaction records it (billing details). */
export interface AuthorizeBuyer {
  /** First and last name of the billing details, else the buyer's display name. */
  name: string | null;
  emailAddress: string | null;
  /** The billing details' tax id (`kind` as the API's TaxIdKind, e.g. `br.cpf`). */
  taxId: { value: string; kind: string } | null;
}

export interface AuthorizeOutcome extends ResponseFacts {
  /**
   * - `authorized`: funds held; `captured`: authorized and captured (intent capture);
   * - `capture_pending`: captured, settlement of the capture is pending at the provider;
   * - `buyer_approval_pending`: the buyer must visit `approvalUrl`;
   * - `declined`: the issuer or provider said no; `failed`: the provider could not process it.
   */
  status: 'authorized' | 'captured' | 'capture_pending' | 'buyer_approval_pending' | 'declined' | 'failed';
  /** The provider's id of the payment. */
  providerTransactionId: string | null;
  authResponseCode: string | null;
  avsResponseCode:
    | 'match'
    | 'no_match'
    | 'partial_match_address'
    | 'partial_match_postcode'
    | 'partial_match_name'
    | 'unavailable'
    | null;
  cvvResponseCode: 'match' | 'no_match' | 'unavailable' | 'not_provided' | null;
  /**
   * The card scheme's (network's) transaction id of an approved card payment, as the provider
   * answered it (Stripe `network_transaction_id`, Adyen `networkTxReference`, Braintree
   * `networkTransactionId`): the transaction's `scheme_transaction_id`, and the stored card's when
   * it is its first approved customer-initiated payment.
   */
  schemeTransactionId: string | null;
  merchantAdviceCode: string | null;
  approvalUrl: string | null;
  /** Free-form ids at the provider (authorization id, ...). */
  additionalIdentifiers: Record<string, string | null>;
}

/**
 * Non-secret facts of the original payment that follow-up calls carry (first 6 and last 4 of the
 * card, the authorized amount): some providers look payments up by them, and the simulators
 * derive their outcome from them.
 */
export interface PaymentHint {
  method: string;
  bin: string | null;
  last4: string | null;
  authorizedAmount: number;
  /** The transaction's `cart_items`, for a provider that itemizes its captures and refunds (Klarna); absent or null: none. */
  cartItems?: CartLine[] | null;
}

/**
 * One line of a transaction's `cart_items`, in the transaction's minor units: `unitAmount` is the
 * price of one item with its tax; `discountAmount` and `taxAmount` are the line's (all its items).
 */
export interface CartLine {
  name: string;
  quantity: number;
  unitAmount: number;
  discountAmount: number | null;
  taxAmount: number | null;
  sku: string | null;
  externalIdentifier: string | null;
  productUrl: string | null;
  imageUrl: string | null;
}

export interface CaptureRequest extends CallBase {
  payment: PaymentHint;
  providerTransactionId: string;
  reference: string;
  amount: number;
  currency: string;
  /** False: more captures may follow (multi-capture). */
  final: boolean;
}

export interface CaptureOutcome extends ResponseFacts {
  status: 'succeeded' | 'pending' | 'declined' | 'failed';
  providerCaptureId: string | null;
}

export interface VoidRequest extends CallBase {
  payment: PaymentHint;
  providerTransactionId: string;
  reference: string;
}

export interface VoidOutcome extends ResponseFacts {
  status: 'succeeded' | 'pending' | 'declined' | 'failed';
}

export interface RefundRequest extends CallBase {
  payment: PaymentHint;
  providerTransactionId: string;
  reference: string;
  amount: number;
  currency: string;
  reason: string | null;
  /** As `AuthorizeRequest.notificationUrl`: where the provider reports the refund's outcome. */
  notificationUrl?: string | null;
}

export interface RefundOutcome extends ResponseFacts {
  status: 'succeeded' | 'processing' | 'declined' | 'failed';
  providerRefundId: string | null;
}

/** Raises the authorized amount of a payment by `amount` (the increase, not the new total). */
export interface IncrementRequest extends CallBase {
  payment: PaymentHint;
  providerTransactionId: string;
  reference: string;
  amount: number;
  currency: string;
}

export interface IncrementOutcome extends ResponseFacts {
  status: 'succeeded' | 'declined' | 'failed';
}

/** What an earlier call turned into at the provider (reconciliation, sync). */
export interface SyncRequest extends CallBase {
  /** `increment`: `amount` is the increase; `authorized` means it was approved. */
  operation: 'authorize' | 'capture' | 'void' | 'refund' | 'increment';
  /** Null when the original call never got an answer (a timeout). */
  providerTransactionId: string | null;
  /**
   * The payment's own id at the provider (the authorization's), which a capture, void or refund
   * refers to; `providerTransactionId` is then the modification's own id. Null before the
   * authorization was answered.
   */
  paymentProviderTransactionId?: string | null;
  /** The original call's reference (a refund's own, else the transaction's). */
  reference: string;
  amount: number;
  currency: string;
  payment: PaymentHint;
  /** The intent of the original authorization. */
  intent: 'authorize' | 'capture';
  /** The buyer visited the approval page and approved (redirect flows), as recorded by us. */
  buyerApproved: boolean | null;
  /**
   * What the provider appended when it sent the buyer back to `/connector-returns/...` after its own
   * approval page (e.g. Adyen's `redirectResult`); absent for a plain status query.
   */
  returnParams?: Record<string, string> | null;
}

export interface SyncOutcome extends ResponseFacts {
  /**
   * `not_found`: the provider has no record of the call (it never arrived); `pending`: the provider
   * has the call but not its result yet (asked again later; asynchronous providers report by webhook).
   */
  status:
    | 'pending'
    | 'authorized'
    | 'captured'
    | 'capture_pending'
    | 'buyer_approval_pending'
    | 'declined'
    | 'failed'
    | 'voided'
    | 'refunded'
    | 'refund_pending'
    | 'not_found';
  providerTransactionId: string | null;
  /** Of an approved authorization (after 3DS at the provider, or found again): as `AuthorizeOutcome.schemeTransactionId`. */
  schemeTransactionId?: string | null;
  /**
   * The buyer's account at the provider, of a payment the buyer approved on the provider's page
   * (PayPal's payer: `id` its payer id, `email` its e-mail): a payment with `store: true` stores
   * it as a payment method of the transaction's method, which payouts can send to.
   */
  providerAccount?: { id: string; email: string | null } | null;
}

export interface TokenizeRequest extends CallBase {
  card: { number: string; expirationDate: string; securityCode: string | null };
  redirectUrl: string;
}

export interface TokenizeOutcome extends ResponseFacts {
  status: 'succeeded' | 'buyer_approval_required' | 'failed';
  token: string | null;
  approvalUrl: string | null;
}

export type { CallBase, ResponseFacts } from './connector-base.ts';
export type {
  FetchSettlements,
  SettlementFetchRequest,
  SettlementLine,
  SettlementPage,
} from './connector-settlements.ts';
export type {
  PayoutAddress,
  PayoutInstrument,
  PayoutMerchant,
  PayoutOutcome,
  PayoutRequest,
  PayoutSyncOutcome,
  PayoutSyncRequest,
} from './connector-payouts.ts';

/** What an earlier tokenize call, found by its idempotency key, turned into at the provider. */
export interface TokenSyncRequest extends CallBase {
  /** The stored card's BIN (first 6 or 8 digits) and last 4, never the number. */
  card: { bin: string | null; last4: string | null };
}

export interface TokenSyncOutcome extends ResponseFacts {
  /** `processing`: not decided yet; `not_found`: the provider has no record of the call (it never arrived). */
  status: 'succeeded' | 'buyer_approval_required' | 'failed' | 'processing' | 'not_found';
  token: string | null;
  approvalUrl: string | null;
}

export interface VerifyOutcome {
  ok: boolean;
  /** What is wrong with the credentials, for the caller. */
  problems: Array<{ key: string; message: string }>;
}

export interface SessionOutcome {
  status: 'succeeded' | 'failed';
  code: string | null;
  statusCode: number | null;
  responseBody: Record<string, unknown> | null;
}

/** Where a transaction's session is used (the API's IntegrationClient). */
export type IntegrationClient = 'redirect' | 'web' | 'android' | 'ios';

/**
 * The client session of a transaction that waits for its buyer (`POST /transactions/{id}/session`):
 * what a front end needs to take the buyer through the payment service's step, and an optional
 * update of it.
 */
export interface ClientSessionRequest extends CallBase {
  providerTransactionId: string | null;
  reference: string;
  /** The page the buyer must visit (the transaction's approval URL), and until when. */
  approvalUrl: string;
  approvalExpiresAt: Date;
  /** The client the transaction was created for (`integration_client`), if it named one. */
  integrationClient: IntegrationClient | null;
  /** Connector-specific data to update the session with, as the client sent it; null: read it only. */
  payload: Record<string, unknown> | null;
}

export interface ClientSessionOutcome {
  /** `update_refused`: the session takes no such update (the caller answers 400 naming `payload`, with `message`). */
  status: 'succeeded' | 'update_refused';
  /** What the client needs to launch the provider's step (SDK or page). */
  sessionData: Record<string, unknown> | null;
  integrationClient: IntegrationClient;
  message: string | null;
}

/** A connector: one payment service's protocol in our normalized types. */
export interface PaymentConnector {
  readonly definition: ConnectorDefinition;
  /**
   * What the payment service configured with these credentials allows beyond the definition's
   * capabilities: multi-capture and over-capture are per-connection settings at most providers.
   */
  captureRules(credentials: Record<string, string>): CaptureRules;
  /** Checks credential fields (without calling the provider where it cannot). */
  verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome>;
  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome>;
  capture(request: CaptureRequest): Promise<CaptureOutcome>;
  void(request: VoidRequest): Promise<VoidOutcome>;
  refund(request: RefundRequest): Promise<RefundOutcome>;
  /** Present when `capabilities.sync`. */
  sync?(request: SyncRequest): Promise<SyncOutcome>;
  /** Present when `capabilities.tokenize`. */
  tokenize?(request: TokenizeRequest): Promise<TokenizeOutcome>;
  /** Optional with `capabilities.tokenize`: reconciliation of a tokenize call that got no answer. */
  syncToken?(request: TokenSyncRequest): Promise<TokenSyncOutcome>;
  /** Present when `capabilities.sessions`. */
  createSession?(credentials: Record<string, string>, body: Record<string, unknown>): Promise<SessionOutcome>;
  /**
   * Present when the connector has a client session for a transaction waiting for its buyer (a
   * provider's client SDK session, the sandbox's approval or 3DS page): such transactions carry a
   * `session_token`, and `POST /transactions/{id}/session` answers with this.
   */
  clientSession?(request: ClientSessionRequest): Promise<ClientSessionOutcome>;
  /** Present when `capabilities.incrementalAuthorization`. */
  incrementAuthorization?(request: IncrementRequest): Promise<IncrementOutcome>;
  /** Present when `capabilities.payout`. Sends `amount` to the instrument; `idempotencyKey` makes a retry find the same payout. */
  payout?(request: PayoutRequest): Promise<PayoutOutcome>;
  /** Optional with `capabilities.payout`: the status of a payout that is pending or got no answer (reconciliation). */
  syncPayout?(request: PayoutSyncRequest): Promise<PayoutSyncOutcome>;
  /** Present when the provider sends webhooks: verifies and maps one inbound request (`connector-webhooks.ts`). */
  parseWebhook?: ParseInboundWebhook;
  /** Present on real connectors whose provider reports settlements (`connector-settlements.ts`); never on a sandbox connector. */
  settlements?: FetchSettlements;
  /**
   * Built-in simulators only (never a real connector): the events its simulated provider reports
   * later about a payment now waiting (`connector-simulations.ts`).
   */
  simulatedEvents?: SimulateEvents;
}

/**
 * A technical failure talking to the provider. `timeout`: the request may have reached the
 * provider, so the outcome is unknown (never a decline); `unavailable`: it certainly did not
 * complete; `invalid_request`: the provider refused the request's shape (a bug or bad credentials).
 */
export class ConnectorError extends Error {
  constructor(
    readonly kind: 'invalid_request' | 'unavailable' | 'timeout',
    message: string,
    readonly raw: { code?: string; description?: string } = {},
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}
