import { describe, expect, it } from 'vitest';
import { boundedCall } from '../../src/connectors/call.ts';
import {
  ConnectorError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type CartLine,
  type PaymentConnector,
  type SyncOutcome,
} from '../../src/connectors/connector.ts';
import type { InboundWebhookActionKind, InboundWebhookRequest } from '../../src/connectors/connector-webhooks.ts';
import { STANDARD_ERROR_CODES } from '../../src/connectors/error-codes.ts';
import { isCurrency } from '../../src/lib/currencies.ts';
import { uuidv7 } from '../../src/lib/ids.ts';

/**
 * The connector contract test: the same scenarios against every connector, simulated or real
 * (docs/connectors.md; each scenario with the harness field that enables it: the checklist of
 * docs/adding-a-connector.md, hour 7). A runner file per connector gives a harness (its fake
 * provider, test cards, how to make a call go unanswered, how the provider signs a webhook) and
 * calls `runConnectorContract`. A new connector must pass it.
 */

/** One payment of a scenario: a card number and an amount (a redirect harness ignores the number). */
export interface CardInput {
  number: string;
  amount: number;
}

/**
 * A redirect method (no card: PayPal, bank redirects): every authorization waits for the buyer on
 * the provider's page (`buyer_approval_pending`), and `sync` completes it once the buyer approved,
 * with what the provider appended to our return address, as the engine does on the buyer's return.
 */
export interface RedirectHarness {
  /** The method of the instrument (`paypal`). */
  method: string;
  /** The buyer approves at the provider (as on its page); returns the parameters the provider appends to our return address. */
  approve(pending: AuthorizeOutcome): Record<string, string> | Promise<Record<string, string>>;
  /** The provider's id of what it made for an idempotency key (the fake's record), to check a sync after a lost answer. */
  madeFor(idempotencyKey: string): string | null;
  /**
   * The method is captured when the buyer approves (iDEAL): authorizations are sent with intent
   * `capture` and end `captured`; there is no capture or void to test, refunds act on the payment.
   */
  capturedAtOnce?: boolean;
  /**
   * The provider has no status query (Adyen's Checkout API): after the buyer's page only the
   * buyer's return (or the provider's webhook) tells the outcome, so the sync-by-id scenario sends
   * the return parameters, as the engine does when the buyer comes back.
   */
  statusOnlyWithReturn?: boolean;
}

interface HarnessBase {
  /** The connector under test (built once its fake provider is listening). */
  connector(): PaymentConnector;
  credentials(): Record<string, string>;
  currency: string;
  approve: CardInput;
  decline: CardInput & { errorCode: string };

  /** Arranges that the next authorization reaches the provider but its answer never arrives; returns the call's bound in ms. */
  unanswered(): { card: CardInput; timeoutMs: number };
  /** A signed webhook reporting `kind` for the provider's payment id; `tamper` breaks its signature. */
  webhook(
    kind: 'capture_succeeded' | 'refund_succeeded' | 'chargeback_opened',
    providerTransactionId: string,
    amount: number,
    tamper: boolean,
  ): InboundWebhookRequest;
  /** Provider-level faults (HTTP 401/429/500 answers), where the provider is a fake that can inject them. */
  fault?: (status: 401 | 429 | 500) => void;
  /**
   * The provider receives captures and voids and decides later, reporting by webhook (Adyen's
   * modifications answer `received`): their outcome is `pending` instead of `succeeded`.
   */
  asyncModifications?: boolean;
  /**
   * A method that is a sale (PIX): the buyer's payment is final, so an approved payment is
   * `captured`, and there is no authorization to capture or void (those cases are skipped, with the
   * reason in their name); refunds apply to the payment itself.
   */
  sale?: boolean;
  /** The country of the payments (default US). */
  country?: string;
  /** The buyer every authorization names (a method that needs the payer: PIX's CPF). */
  buyer?: AuthorizeRequest['buyer'];
  /** The webhook kinds the provider sends (default: all three the contract knows). */
  webhookKinds?: ReadonlyArray<'capture_succeeded' | 'refund_succeeded' | 'chargeback_opened'>;
  /** Overrides `asyncModifications` for voids: a provider whose void answers at once (GoCardless cancels the mandate). */
  voidOutcome?: 'succeeded' | 'pending';
  /**
   * The provider collects a capture days later (direct debit): the capture is made collected at
   * the fake (as the scheme would) before the scenario refunds it. `captureId`: the capture's id.
   */
  collect?: (providerTransactionId: string, captureId: string | null) => void | Promise<void>;
  /** The order's lines of a payment of `amount` (a method that needs them: Klarna), sent with it and its captures and refunds. */
  cartItems?: (amount: number) => CartLine[];
}

/** A card connector: `threeDS` is a card the issuer wants authenticated: `redirect` (the provider's 3DS page) or `authentication_required` (declined without 3DS data). */
export interface CardHarness extends HarnessBase {
  threeDS: CardInput & { expect: 'redirect' | 'authentication_required' };
  redirect?: undefined;
}

/** A redirect method's connector: approvals replace the cards' 3DS case. */
export interface RedirectMethodHarness extends HarnessBase {
  redirect: RedirectHarness;
  threeDS?: undefined;
}

export type ContractHarness = CardHarness | RedirectMethodHarness;

const base = (h: ContractHarness) => ({ credentials: h.credentials(), options: null });
/** The intent of the scenarios' authorizations, and the status an approved one ends in. */
const intentOf = (h: ContractHarness) => (h.redirect?.capturedAtOnce ? 'capture' : 'authorize');
/** What an approved payment is: `captured` for a method captured at once (iDEAL) or a sale (PIX). */
const approvedStatus = (h: ContractHarness) => (h.redirect?.capturedAtOnce || h.sale ? 'captured' : 'authorized');

export function authorizeRequest(
  h: ContractHarness,
  card: CardInput,
  extra: Partial<AuthorizeRequest> = {},
): AuthorizeRequest {
  return {
    ...base(h),
    idempotencyKey: uuidv7(),
    reference: `ref${Date.now()}`,
    amount: card.amount,
    currency: h.currency,
    country: h.country ?? 'US',
    intent: intentOf(h),
    instrument: h.redirect
      ? {
          kind: 'redirect',
          method: h.redirect.method,
          redirectUrl: 'https://merchant.example/return',
          country: h.country ?? 'US',
          currency: h.currency,
        }
      : { kind: 'card', number: card.number, expirationDate: '12/40', securityCode: '123', scheme: 'visa' },
    merchantInitiated: false,
    isSubsequentPayment: false,
    paymentSource: 'ecommerce',
    threeDSecure: null,
    approvalBaseUrl: 'http://localhost:3000',
    merchantAccountId: 'contract-merchant',
    redirectUrl: 'https://merchant.example/return',
    ...(h.buyer ? { buyer: h.buyer } : {}),
    ...(h.cartItems ? { cartItems: h.cartItems(card.amount) } : {}),
    ...extra,
  };
}

const hint = (card: CardInput, h?: ContractHarness) => ({
  method: h?.redirect?.method ?? 'card',
  bin: card.number.slice(0, 6),
  last4: card.number.slice(-4),
  authorizedAmount: card.amount,
  ...(h?.cartItems ? { cartItems: h.cartItems(card.amount) } : {}),
});

async function authorized(h: ContractHarness) {
  return (await authorizedWithKey(h)).id;
}

/** A status query of an authorization, as the engine sends it. */
function authorizationSync(
  h: ContractHarness,
  key: string,
  card: CardInput,
  id: string | null,
  returnParams?: Record<string, string>,
) {
  return h.connector().sync!({
    ...base(h),
    idempotencyKey: key,
    operation: 'authorize',
    providerTransactionId: id,
    reference: 'r',
    amount: card.amount,
    currency: h.currency,
    payment: hint(card, h),
    intent: intentOf(h),
    buyerApproved: null,
    ...(returnParams ? { returnParams } : {}),
  });
}

/**
 * The outcome of an authorization: the card's answer, or, for a redirect method, the status query
 * after the buyer approved on the provider's page (the method's approval replaces the card's answer).
 */
async function authorization(
  h: ContractHarness,
  card: CardInput,
): Promise<{
  key: string;
  outcome: Pick<SyncOutcome, 'status' | 'errorCode' | 'rawResponseCode' | 'providerTransactionId'>;
  params?: Record<string, string>;
}> {
  const request = authorizeRequest(h, card);
  const first = await h.connector().authorize(request);
  if (!h.redirect) return { key: request.idempotencyKey, outcome: first };
  expect(first).toMatchObject({ status: 'buyer_approval_pending', approvalUrl: expect.stringMatching(/^https?:\/\//) });
  const params = await h.redirect.approve(first);
  return {
    key: request.idempotencyKey,
    outcome: await authorizationSync(h, request.idempotencyKey, card, first.providerTransactionId, params),
    params,
  };
}

/** An approved authorization: the provider's id, and the idempotency key (the attempt id) it was made with. */
async function authorizedWithKey(h: ContractHarness) {
  const { key, outcome, params } = await authorization(h, h.approve);
  expect(outcome.status).toBe(approvedStatus(h));
  return { id: outcome.providerTransactionId!, key, params };
}

const done = (h: ContractHarness) => (h.asyncModifications ? 'pending' : 'succeeded');
/** What an approved payment is: authorized, or captured for a sale. */

/** Runs every scenario of the contract against the connector `harness` gives. */
export function runConnectorContract(name: string, harness: () => ContractHarness): void {
  describe(`connector contract: ${name}`, () => {
    describe('happy', () => happyScenarios(harness));
    describe('errors', () => errorScenarios(harness));
    describe('security', () => securityScenarios(harness));
  });
}

function happyScenarios(h: () => ContractHarness): void {
  it('publishes a consistent definition: valid currencies, members present exactly for the capabilities', () => {
    const c = h().connector();
    const { capabilities: caps } = c.definition;
    expect(c.definition.supportedCurrencies.length).toBeGreaterThan(0);
    for (const currency of c.definition.supportedCurrencies) expect(isCurrency(currency), currency).toBe(true);
    expect(Boolean(c.sync)).toBe(caps.sync);
    expect(Boolean(c.tokenize)).toBe(caps.tokenize);
    expect(Boolean(c.payout)).toBe(caps.payout);
    expect(Boolean(c.createSession)).toBe(caps.sessions);
    expect(typeof c.parseWebhook).toBe('function');
  });

  it("authorizes an approved card (or a redirect payment the buyer approved) with the provider's id and no error", async () => {
    const { outcome } = await authorization(h(), h().approve);
    expect(outcome).toMatchObject({ status: approvedStatus(h()), errorCode: null });
    expect(outcome.providerTransactionId).toEqual(expect.any(String));
  });

  // Captured when the buyer approved (iDEAL) or paid (a PIX sale): nothing is held to capture or void.
  const atOnce = h().redirect?.capturedAtOnce === true || h().sale === true;
  (atOnce ? it : it.skip)(
    `refunds part of a payment captured when the buyer approved or paid it${atOnce ? '' : ' (skipped: the method captures separately)'}`,
    async () => {
      const id = await authorized(h());
      const refund = await h()
        .connector()
        .refund({
          ...base(h()),
          idempotencyKey: uuidv7(),
          payment: hint(h().approve, h()),
          providerTransactionId: id,
          reference: 'ref',
          amount: Math.floor(h().approve.amount / 4),
          currency: h().currency,
          reason: null,
        });
      expect(['succeeded', 'processing']).toContain(refund.status);
      expect(refund.providerRefundId).toEqual(expect.any(String));
    },
  );

  (atOnce ? it.skip : it)(
    `captures part of an authorization, then refunds part of the capture${atOnce ? ' (skipped: captured when approved or paid)' : ''}`,
    async () => {
      const c = h().connector();
      const id = await authorized(h());
      const half = Math.floor(h().approve.amount / 2);
      const capture = await c.capture({
        ...base(h()),
        idempotencyKey: uuidv7(),
        payment: hint(h().approve, h()),
        providerTransactionId: id,
        reference: 'cap',
        amount: half,
        currency: h().currency,
        final: true,
      });
      expect(capture).toMatchObject({ status: done(h()), errorCode: null });
      await h().collect?.(id, capture.providerCaptureId);
      const refund = await c.refund({
        ...base(h()),
        idempotencyKey: uuidv7(),
        payment: hint(h().approve, h()),
        providerTransactionId: id,
        reference: 'ref',
        amount: Math.floor(half / 2),
        currency: h().currency,
        reason: null,
      });
      expect(['succeeded', 'processing']).toContain(refund.status);
    },
  );

  (atOnce ? it.skip : it)(
    `voids an authorization${atOnce ? ' (skipped: captured when approved or paid, nothing to void)' : ''}`,
    async () => {
      const id = await authorized(h());
      expect(
        await h()
          .connector()
          .void({
            ...base(h()),
            idempotencyKey: uuidv7(),
            payment: hint(h().approve, h()),
            providerTransactionId: id,
            reference: 'void',
          }),
      ).toMatchObject({ status: h().voidOutcome ?? done(h()) });
    },
  );

  it("reports an authorization's status by its id (sync, with the attempt id as the engine sends it)", async () => {
    const { id, key, params } = await authorizedWithKey(h());
    const sync = await authorizationSync(
      h(),
      key,
      h().approve,
      id,
      h().redirect?.statusOnlyWithReturn ? params : undefined,
    );
    expect(sync).toMatchObject({ status: approvedStatus(h()), providerTransactionId: id });
  });

  it("asks for the buyer's authentication (or approval) as the provider does", async () => {
    const { threeDS, redirect } = h();
    if (redirect) {
      // A redirect method: the provider's page, and no payment until the buyer approves there.
      const request = authorizeRequest(h(), h().approve);
      const outcome = await h().connector().authorize(request);
      expect(outcome).toMatchObject({
        status: 'buyer_approval_pending',
        approvalUrl: expect.stringMatching(/^https?:\/\//),
      });
      const sync = await authorizationSync(h(), request.idempotencyKey, h().approve, outcome.providerTransactionId);
      expect(sync.status).toBe('buyer_approval_pending');
      return;
    }
    const outcome = await h().connector().authorize(authorizeRequest(h(), threeDS));
    if (threeDS.expect === 'redirect')
      expect(outcome).toMatchObject({
        status: 'buyer_approval_pending',
        approvalUrl: expect.stringMatching(/^https?:\/\//),
      });
    else expect(outcome).toMatchObject({ status: 'declined', errorCode: 'authentication_required' });
  });
}

function errorScenarios(h: () => ContractHarness): void {
  it('answers a decline as an outcome with a standardized error code and the raw code kept', async () => {
    const { decline } = h();
    const { outcome } = await authorization(h(), decline);
    expect(outcome.status).toBe('declined');
    expect(STANDARD_ERROR_CODES).toContain(outcome.errorCode);
    expect(outcome.errorCode).toBe(decline.errorCode);
    expect(outcome.rawResponseCode).toEqual(expect.any(String));
  });

  it('leaves an unanswered call unknown (timeout), and sync then finds it by the idempotency key', async () => {
    const { card, timeoutMs } = h().unanswered();
    const request = authorizeRequest(h(), card);
    const result = await boundedCall(() => h().connector().authorize(request), { timeoutMs });
    expect(result).toMatchObject({ ok: false, kind: 'timeout' });
    const sync = await authorizationSync(h(), request.idempotencyKey, card, null);
    const { redirect } = h();
    if (!redirect) expect(sync.status).toBe('authorized');
    else {
      // The buyer never got the page of a payment whose answer was lost: it is found, and final.
      expect(sync.providerTransactionId).toBe(redirect.madeFor(request.idempotencyKey));
      expect(sync.providerTransactionId).toEqual(expect.any(String));
      expect(['pending', 'buyer_approval_pending', 'not_found']).not.toContain(sync.status);
    }
  });

  // Only where the harness can inject the fault (a fake provider): elsewhere the cases show as
  // skipped, with the reason in their name, instead of passing without an assertion.
  const faults = h().fault !== undefined;
  (faults ? it : it.skip).each([401, 429, 500] as const)(
    `turns a provider HTTP %i into a ConnectorError of the right kind, never a decline${faults ? '' : ' (skipped: this harness cannot inject provider faults)'}`,
    async (status) => {
      h().fault!(status);
      const error = await h()
        .connector()
        .authorize(authorizeRequest(h(), h().approve))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectorError);
      expect((error as ConnectorError).kind).toBe(
        status === 401 ? 'invalid_request' : status === 429 ? 'unavailable' : 'timeout',
      );
    },
  );
}

function securityScenarios(h: () => ContractHarness): void {
  it.each(h().webhookKinds ?? (['capture_succeeded', 'refund_succeeded', 'chargeback_opened'] as const))(
    'accepts a correctly signed %s webhook and maps it to that action',
    async (kind: InboundWebhookActionKind) => {
      const id = await authorized(h());
      const outcome = await h().connector().parseWebhook!(
        h().credentials(),
        h().webhook(kind as never, id, h().approve.amount, false),
      );
      expect(outcome).toMatchObject({ status: 'accepted', events: [{ eventId: expect.any(String) }] });
      if (outcome.status === 'accepted')
        expect(outcome.events.flatMap((e) => e.actions)).toEqual([
          expect.objectContaining({ kind, providerTransactionId: id }),
        ]);
    },
  );

  it('rejects a webhook with a bad signature, and one without credentials to check it', async () => {
    const id = await authorized(h());
    expect(
      await h().connector().parseWebhook!(h().credentials(), h().webhook('capture_succeeded', id, 100, true)),
    ).toMatchObject({ status: 'rejected' });
    expect(await h().connector().parseWebhook!({}, h().webhook('capture_succeeded', id, 100, false))).toMatchObject({
      status: 'rejected',
    });
  });
}
