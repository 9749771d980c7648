import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRAINTREE_FAKE_KEYS, startBraintreeFake, type BraintreeFake } from '../../../test/fakes/braintree-fake.ts';
import type { AuthorizeRequest, ConnectorError, SyncRequest } from '../connector.ts';
import { BraintreeCardConnector } from './braintree.connector.ts';
import { declineOfErrors } from './braintree.mapping.ts';
import { BRAINTREE_HOSTS, BRAINTREE_URLS } from './braintree.definition.ts';
import { providerRequest } from '../provider-http.ts';

const PAN = '4111111111111111';
let fake: BraintreeFake;
let bt: BraintreeCardConnector;
const credentials = {
  environment: 'sandbox',
  merchant_id: 'mid',
  ...BRAINTREE_FAKE_KEYS,
  merchant_account_ids: 'USD=default_usd,EUR=acme_eur,JPY=acme_jpy,KWD=acme_kwd',
};

beforeAll(async () => {
  fake = await startBraintreeFake();
  fake.slowMs = 1500;
  bt = new BraintreeCardConnector({ baseUrls: { 'braintree-card': fake.baseUrl }, timeoutMs: 500 });
});
afterAll(async () => fake.close());

function authorization(overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    idempotencyKey: randomUUID(),
    credentials,
    options: null,
    reference: 'ref1',
    amount: 1000,
    currency: 'USD',
    country: 'US',
    intent: 'authorize',
    instrument: { kind: 'card', number: PAN, expirationDate: '03/30', securityCode: '123', scheme: 'visa' },
    merchantInitiated: false,
    isSubsequentPayment: false,
    paymentSource: 'ecommerce',
    threeDSecure: null,
    approvalBaseUrl: 'https://svc.example',
    merchantAccountId: 'm1',
    redirectUrl: null,
    ...overrides,
  };
}

const hint = { method: 'card', bin: '411111', last4: '1111', authorizedAmount: 1000 };
const syncOf = (key: string, extra: Partial<SyncRequest>): SyncRequest => ({
  idempotencyKey: key,
  credentials,
  options: null,
  operation: 'authorize',
  providerTransactionId: null,
  reference: 'ref1',
  amount: 1000,
  currency: 'USD',
  payment: hint,
  intent: 'authorize',
  buyerApproved: null,
  ...extra,
});

describe('happy', () => {
  it("tokenizes the card, then authorizes it with the attempt id as orderId, in the currency's merchant account", async () => {
    const request = authorization({ amount: 1250, currency: 'KWD' });
    const outcome = await bt.authorize(request);
    expect(outcome).toMatchObject({
      status: 'authorized',
      authResponseCode: '1000',
      cvvResponseCode: 'match',
      additionalIdentifiers: { transaction_id: outcome.providerTransactionId, authorization_id: expect.any(String) },
    });
    expect(fake.calls('TokenizeCreditCard').at(-1)).toEqual({
      input: { creditCard: { number: PAN, expirationMonth: '03', expirationYear: '2030', cvv: '123' } },
    });
    expect(fake.calls('AuthorizeCreditCard').at(-1)).toMatchObject({
      input: { transaction: { amount: '1.250', orderId: request.idempotencyKey, merchantAccountId: 'acme_kwd' } },
    });
    expect(fake.requests.at(-1)!.headers).toMatchObject({
      'braintree-version': '2019-01-01',
      authorization: expect.stringMatching(/^Basic /),
    });
  });

  it('charges at once with intent capture (zero-decimal JPY)', async () => {
    const outcome = await bt.authorize(authorization({ intent: 'capture', amount: 1000, currency: 'JPY' }));
    expect(outcome.status).toBe('captured');
    expect(fake.calls('ChargeCreditCard').at(-1)).toMatchObject({
      input: { transaction: { amount: '1000', merchantAccountId: 'acme_jpy' } },
    });
  });

  it('captures in part, voids, and refunds once settled', async () => {
    const paid = await bt.authorize(authorization({ amount: 3000 }));
    const base = {
      credentials,
      options: null,
      payment: { ...hint, authorizedAmount: 3000 },
      providerTransactionId: paid.providerTransactionId!,
      reference: 'ref1',
      currency: 'USD',
    };
    expect(await bt.capture({ ...base, idempotencyKey: randomUUID(), amount: 2000, final: true })).toMatchObject({
      status: 'succeeded',
      providerCaptureId: paid.providerTransactionId,
    });
    expect(fake.calls('CaptureTransaction').at(-1)).toMatchObject({ input: { transaction: { amount: '20.00' } } });
    expect(await bt.refund({ ...base, idempotencyKey: randomUUID(), amount: 500, reason: null })).toMatchObject({
      status: 'declined',
      errorCode: 'refund_declined',
      rawResponseCode: '91506',
    });
    fake.settleAll();
    const refundKey = randomUUID();
    expect(await bt.refund({ ...base, idempotencyKey: refundKey, amount: 500, reason: null })).toMatchObject({
      status: 'succeeded',
      providerRefundId: expect.any(String),
    });
    expect(fake.calls('RefundTransaction').at(-1)).toMatchObject({
      input: { refund: { amount: '5.00', orderId: refundKey } },
    });
    const other = await bt.authorize(authorization());
    expect(
      await bt.void({ ...base, providerTransactionId: other.providerTransactionId!, idempotencyKey: randomUUID() }),
    ).toMatchObject({ status: 'succeeded' });
  });

  it('vaults a card and pays with the vaulted id', async () => {
    const tokenized = await bt.tokenize({
      idempotencyKey: 'pst-1',
      credentials,
      options: null,
      card: { number: PAN, expirationDate: '03/30', securityCode: null },
      redirectUrl: 'https://shop.example',
    });
    expect(tokenized).toMatchObject({ status: 'succeeded', token: expect.stringMatching(/^vpm_/) });
    const outcome = await bt.authorize(
      authorization({
        instrument: { kind: 'payment-service-token', token: tokenized.token! },
        merchantInitiated: true,
      }),
    );
    expect(outcome.status).toBe('authorized');
    expect(fake.calls('AuthorizeCreditCard').at(-1)).toMatchObject({ input: { paymentMethodId: tokenized.token } });
  });

  it('finds a transaction whose answer was lost by its orderId, and proves a never-made one absent', async () => {
    const request = authorization({ amount: 409000 });
    await expect(bt.authorize(request)).rejects.toMatchObject({ kind: 'timeout' });
    expect(await bt.sync(syncOf(request.idempotencyKey, {}))).toMatchObject({
      status: 'authorized',
      providerTransactionId: expect.any(String),
    });
    expect(fake.calls('SearchTransactions').at(-1)).toEqual({ input: { orderId: { is: request.idempotencyKey } } });
    expect(await bt.sync(syncOf(randomUUID(), {}))).toMatchObject({ status: 'not_found' });
    const paid = await bt.authorize(authorization());
    expect(
      await bt.sync(syncOf(randomUUID(), { operation: 'capture', providerTransactionId: paid.providerTransactionId })),
    ).toMatchObject({ status: 'failed', errorCode: 'capture_declined' });
  });

  it('verifies credentials with Braintree', async () => {
    expect(await bt.verifyCredentials(credentials)).toEqual({ ok: true, problems: [] });
  });
});

describe('errors', () => {
  it('maps processor declines, gateway rejections and failures, keeping the raw codes', async () => {
    expect(await bt.authorize(authorization({ amount: 200000 }))).toMatchObject({
      status: 'declined',
      errorCode: 'do_not_honor',
      rawResponseCode: '2000',
      rawResponseDescription: 'Do Not Honor',
    });
    expect(await bt.authorize(authorization({ amount: 200100 }))).toMatchObject({
      status: 'declined',
      errorCode: 'insufficient_funds',
      rawResponseCode: '2001',
    });
    expect(await bt.authorize(authorization({ amount: 300000 }))).toMatchObject({
      status: 'failed',
      errorCode: 'service_error',
      rawResponseCode: '3000',
    });
    const cvv = authorization({
      instrument: { kind: 'card', number: PAN, expirationDate: '03/30', securityCode: '200', scheme: 'visa' },
    });
    expect(await bt.authorize(cvv)).toMatchObject({
      status: 'declined',
      errorCode: 'incorrect_cvv',
      rawResponseCode: 'CVV',
      cvvResponseCode: 'no_match',
    });
    expect(
      declineOfErrors([
        { message: 'Insufficient Funds', extensions: { errorClass: 'VALIDATION', legacyCode: '2001' } },
      ]),
    ).toMatchObject({ errorCode: 'insufficient_funds', rawResponseCode: '2001' });
  });

  it('classifies failures: 401 invalid_request, 429 unavailable, 500 and slow answers unknown (timeout), no merchant account for a currency', async () => {
    await expect(
      bt.authorize(authorization({ credentials: { ...credentials, private_key: 'wrong' } })),
    ).rejects.toMatchObject({ kind: 'invalid_request' });
    await expect(bt.authorize(authorization({ amount: 429000 }))).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(bt.authorize(authorization({ amount: 500000 }))).rejects.toMatchObject({ kind: 'timeout' });
    await expect(bt.authorize(authorization({ amount: 408000 }))).rejects.toMatchObject({ kind: 'timeout' });
    await expect(bt.authorize(authorization({ currency: 'GBP' }))).rejects.toMatchObject({
      kind: 'invalid_request',
      message: expect.stringContaining('GBP'),
    });
  });

  it('reports bad credentials and fields as problems', async () => {
    expect(await bt.verifyCredentials({ ...credentials, private_key: 'wrong' })).toMatchObject({
      ok: false,
      problems: [{ key: 'private_key' }],
    });
    expect(await bt.verifyCredentials({ environment: 'live', merchant_account_ids: 'usd:x' })).toMatchObject({
      ok: false,
      problems: expect.arrayContaining([
        { key: 'environment', message: expect.any(String) },
        { key: 'merchant_account_ids', message: expect.any(String) },
      ]),
    });
  });
});

describe('security', () => {
  it('puts no card number, security code or private key in outcomes or errors', async () => {
    const seen: string[] = [];
    for (const amount of [1000, 200000, 429000, 500000]) {
      try {
        seen.push(JSON.stringify(await bt.authorize(authorization({ amount }))));
      } catch (error) {
        seen.push(JSON.stringify({ message: (error as Error).message, raw: (error as ConnectorError).raw }));
      }
    }
    const text = seen.join('\n');
    expect(text).not.toContain(PAN);
    expect(text).not.toContain(BRAINTREE_FAKE_KEYS.private_key);
  });

  it("talks only to Braintree's hosts, over TLS, without the sandbox override", async () => {
    const endpoint = {
      baseUrl: 'https://payments.braintree-api.com.attacker.example/graphql',
      allowedHosts: BRAINTREE_HOSTS,
      overridden: false,
    };
    await expect(providerRequest(endpoint, 'Braintree', 'POST', '', {}, {})).rejects.toMatchObject({
      kind: 'invalid_request',
    });
    await expect(
      providerRequest(
        { ...endpoint, baseUrl: 'http://payments.braintree-api.com/graphql' },
        'Braintree',
        'POST',
        '',
        {},
        {},
      ),
    ).rejects.toMatchObject({ kind: 'invalid_request' });
    expect(BRAINTREE_URLS.production).toBe('https://payments.braintree-api.com/graphql');
  });
});
