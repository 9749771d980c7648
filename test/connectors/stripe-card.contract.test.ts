import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedCall } from '../../src/connectors/call.ts';
import { StripeCardConnector } from '../../src/connectors/stripe/stripe-card.connector.ts';
import { StripeFake } from '../fakes/stripe-fake.ts';
import { authorizeRequest, runConnectorContract, type ContractHarness } from './contract.ts';

const fake = new StripeFake();
const signing = 'whsec_contractsecret';
let connector: StripeCardConnector;

beforeAll(async () => {
  await fake.start();
  connector = new StripeCardConnector({ baseUrl: fake.url });
});
afterAll(() => fake.stop());

/** Stripe's event objects for the three contract kinds (https://docs.stripe.com/api/events/types). */
function eventOf(
  kind: 'capture_succeeded' | 'refund_succeeded' | 'chargeback_opened',
  pi: string,
  amount: number,
): Record<string, unknown> {
  if (kind === 'capture_succeeded')
    return {
      id: `evt_${pi}_c`,
      type: 'payment_intent.succeeded',
      data: {
        object: {
          id: pi,
          object: 'payment_intent',
          amount,
          amount_received: amount,
          currency: 'usd',
          status: 'succeeded',
          latest_charge: 'ch_1',
        },
      },
    };
  if (kind === 'refund_succeeded')
    return {
      id: `evt_${pi}_r`,
      type: 'refund.updated',
      data: {
        object: { id: 're_1', object: 'refund', amount, currency: 'usd', payment_intent: pi, status: 'succeeded' },
      },
    };
  return {
    id: `evt_${pi}_d`,
    type: 'charge.dispute.created',
    data: {
      object: {
        id: 'dp_1',
        object: 'dispute',
        amount,
        currency: 'usd',
        payment_intent: pi,
        status: 'needs_response',
        reason: 'fraudulent',
      },
    },
  };
}

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({ secret_key: fake.secretKey, webhook_signing_secret: signing }),
  currency: 'USD',
  approve: { number: '4242424242424242', amount: 1000 },
  decline: { number: '4000000000009995', amount: 1000, errorCode: 'insufficient_funds' },
  threeDS: { number: '4000000000003220', amount: 1000, expect: 'redirect' },
  unanswered: () => {
    // Stripe creates the PaymentIntent, then the connection breaks (the package retries a reset once, same key).
    fake.failNext({ drop: true }, 2, '/v1/payment_intents');
    return { card: { number: '4242424242424242', amount: 1000 }, timeoutMs: 5000 };
  },
  webhook: (kind, pi, amount, tamper) => {
    const { body, signature } = StripeFake.signedEvent(tamper ? 'whsec_other' : signing, eventOf(kind, pi, amount));
    return {
      headers: { 'stripe-signature': signature, 'content-type': 'application/json' },
      rawBody: Buffer.from(body),
      url: 'http://localhost/webhooks',
    };
  },
  fault: (status) => fake.failNext({ status }, 1, '/v1/payment_intents'),
});

runConnectorContract('stripe-card', harness);

describe('stripe-card against the fake', () => {
  describe('happy', () => {
    it('sends our attempt id as Idempotency-Key, amounts in Stripe units, a lowercase currency and manual capture', async () => {
      const request = authorizeRequest(harness(), { number: '4242424242424242', amount: 1500 }, { currency: 'KWD' });
      await connector.authorize(request);
      const sent = fake.requests.filter((r) => r.path === '/v1/payment_intents').at(-1)!;
      expect(sent.headers['idempotency-key']).toBe(request.idempotencyKey);
      expect(sent.headers.authorization).toBe(`Bearer ${fake.secretKey}`);
      expect(sent.body).toMatchObject({ amount: '1500', currency: 'kwd', capture_method: 'manual', confirm: 'true' });
      expect(JSON.stringify(sent.body)).not.toContain('4242424242424242');
    });

    it("a retried authorization with the same attempt id is answered from Stripe's idempotency store: one PaymentIntent", async () => {
      const request = authorizeRequest(harness(), { number: '4242424242424242', amount: 1200 });
      const first = await connector.authorize(request);
      const second = await connector.authorize(request);
      expect(second.providerTransactionId).toBe(first.providerTransactionId);
    });

    it("maps the charge's CVC and address checks", async () => {
      const cvcFail = await connector.authorize(
        authorizeRequest(harness(), { number: '4000000000000101', amount: 1000 }),
      );
      expect(cvcFail).toMatchObject({ status: 'authorized', cvvResponseCode: 'no_match' });
      const partial = await connector.authorize(
        authorizeRequest(harness(), { number: '4000000000000028', amount: 1000 }),
      );
      expect(partial).toMatchObject({
        cvvResponseCode: 'match',
        avsResponseCode: 'partial_match_postcode',
        authResponseCode: '123456',
      });
    });

    it('captures several parts with multicapture enabled', async () => {
      const credentials = { secret_key: fake.secretKey, multi_capture_enabled: 'true' };
      const auth = await connector.authorize({
        ...authorizeRequest(harness(), { number: '4242424242424242', amount: 3000 }),
        credentials,
      });
      const payment = { method: 'card', bin: '424242', last4: '4242', authorizedAmount: 3000 };
      const part = {
        credentials,
        options: null,
        payment,
        providerTransactionId: auth.providerTransactionId!,
        reference: 'c',
        currency: 'USD',
      };
      expect(await connector.capture({ ...part, idempotencyKey: 'cap-1', amount: 1000, final: false })).toMatchObject({
        status: 'succeeded',
      });
      expect(await connector.capture({ ...part, idempotencyKey: 'cap-2', amount: 2000, final: true })).toMatchObject({
        status: 'succeeded',
      });
      expect(fake.state.intents.get(auth.providerTransactionId!)).toMatchObject({
        status: 'succeeded',
        amount_received: 3000,
      });
    });

    it('stores a card as a Customer with its PaymentMethod, and pays with that token off-session', async () => {
      const credentials = { secret_key: fake.secretKey };
      const token = await connector.tokenize({
        credentials,
        options: null,
        idempotencyKey: 'tok-1',
        card: { number: '4242424242424242', expirationDate: '12/40', securityCode: null },
        redirectUrl: 'https://m.example',
      });
      expect(token).toMatchObject({ status: 'succeeded', token: expect.stringMatching(/^cus_.+:pm_.+$/) });
      const outcome = await connector.authorize({
        ...authorizeRequest(harness(), { number: '', amount: 800 }),
        instrument: { kind: 'payment-service-token', token: token.token! },
        merchantInitiated: true,
      });
      expect(outcome.status).toBe('authorized');
    });
  });

  describe('errors', () => {
    it('a slow answer is cut off by the call bound: unknown, never a decline', async () => {
      fake.failNext({ delayMs: 1500 }, 1, '/v1/payment_intents');
      const result = await boundedCall(
        () => connector.authorize(authorizeRequest(harness(), { number: '4242424242424242', amount: 1000 })),
        { timeoutMs: 300 },
      );
      expect(result).toMatchObject({ ok: false, kind: 'timeout' });
    });

    it('refuses an amount Stripe cannot take exactly (three-decimal KWD needs a last digit of 0) before calling', async () => {
      const before = fake.requests.length;
      await expect(
        connector.authorize(
          authorizeRequest(harness(), { number: '4242424242424242', amount: 1001 }, { currency: 'KWD' }),
        ),
      ).rejects.toMatchObject({ kind: 'invalid_request' });
      expect(fake.requests.length).toBe(before);
    });

    it("a refund of more than was captured is declined with Stripe's code kept", async () => {
      const auth = await connector.authorize(
        authorizeRequest(harness(), { number: '4242424242424242', amount: 1000 }, { intent: 'capture' }),
      );
      expect(auth.status).toBe('captured');
      const refund = await connector.refund({
        credentials: { secret_key: fake.secretKey },
        options: null,
        idempotencyKey: 'ref-big',
        payment: { method: 'card', bin: null, last4: null, authorizedAmount: 1000 },
        providerTransactionId: auth.providerTransactionId!,
        reference: 'r',
        amount: 5000,
        currency: 'USD',
        reason: null,
      });
      expect(refund).toMatchObject({
        status: 'declined',
        errorCode: 'refund_declined',
        rawResponseCode: 'amount_too_large',
      });
    });
  });

  describe('security', () => {
    it('verifies credentials against Stripe: a good key passes, a refused key names the field', async () => {
      expect(await connector.verifyCredentials({ secret_key: fake.secretKey })).toEqual({ ok: true, problems: [] });
      expect(await connector.verifyCredentials({ secret_key: 'sk_test_wrong' })).toEqual({
        ok: false,
        problems: [{ key: 'secret_key', message: 'Stripe refused the secret key (HTTP 401)' }],
      });
      expect((await connector.verifyCredentials({ secret_key: 'nope' })).problems[0]!.key).toBe('secret_key');
    });

    it('refuses a webhook signed longer ago than the 5 minute tolerance', () => {
      const old = Math.floor(Date.now() / 1000) - 301;
      const { body, signature } = StripeFake.signedEvent(signing, eventOf('capture_succeeded', 'pi_1', 100), old);
      const outcome = connector.parseWebhook(
        { webhook_signing_secret: signing },
        { headers: { 'stripe-signature': signature }, rawBody: Buffer.from(body), url: 'x' },
      );
      expect(outcome).toMatchObject({ status: 'rejected', reason: expect.stringContaining('tolerance') });
    });
  });
});
