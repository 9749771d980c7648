import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AntiFraudOrder } from '../../src/connectors/anti-fraud/anti-fraud-connector.ts';
import { createAntiFraudRegistry } from '../../src/connectors/anti-fraud/anti-fraud-registry.ts';
import { RiskifiedAntiFraudConnector } from '../../src/connectors/riskified/riskified.connector.ts';
import { DECIDE_STATUS } from '../../src/connectors/riskified/riskified.mapping.ts';
import {
  RISKIFIED_FAKE_SHOP,
  RISKIFIED_FAKE_TOKEN,
  startRiskifiedFake,
  type RiskifiedFake,
} from '../fakes/riskified-fake.ts';

let fake: RiskifiedFake;
let connector: RiskifiedAntiFraudConnector;
const credentials = () => ({ shop_domain: RISKIFIED_FAKE_SHOP, auth_token: RISKIFIED_FAKE_TOKEN });

beforeAll(async () => {
  fake = await startRiskifiedFake();
  connector = new RiskifiedAntiFraudConnector({ baseUrls: { 'riskified-anti-fraud': fake.apiUrl }, timeoutMs: 1_000 });
});
afterAll(async () => fake.close());

const order = (amount: number, overrides: Partial<AntiFraudOrder> = {}): AntiFraudOrder => ({
  transactionId: '0190f1c2-0000-7000-8000-000000000001',
  amount,
  currency: 'USD',
  country: 'US',
  createdAt: new Date('2026-12-06T12:00:00Z'),
  method: 'card',
  card: { number: null, bin: '411111', last4: '1111', scheme: 'visa', expirationDate: '12/30' },
  buyer: { externalIdentifier: 'b-1', emailAddress: 'ada@example.com', firstName: 'Ada', lastName: 'L' },
  ipAddress: '203.0.113.7',
  fingerprint: 'session-123',
  options: { line_items: [{ delivered_to: 'store_pickup' }] },
  ...overrides,
});

describe('riskified-anti-fraud contract', () => {
  it('maps every documented Decide status, and nothing else, to a decision', () => {
    expect(DECIDE_STATUS).toEqual({ approved: 'accept', declined: 'reject', submitted: 'review' });
  });

  it('accepts an approved order, sending a signed Decide with the order in major units and no card number', async () => {
    const outcome = await connector.decide({ credentials: credentials(), order: order(1299) });
    expect(outcome).toEqual({
      decision: 'accept',
      raw: { status: 'approved', description: 'Reviewed and approved by Riskified' },
    });
    const sent = fake.orders.at(-1)!;
    expect(sent).toMatchObject({
      id: '0190f1c2-0000-7000-8000-000000000001',
      currency: 'USD',
      total_price: '12.99',
      email: 'ada@example.com',
      browser_ip: '203.0.113.7',
      cart_token: 'session-123',
      payment_details: [{ credit_card_bin: '411111', credit_card_number: 'XXXX-XXXX-XXXX-1111' }],
      line_items: [{ delivered_to: 'store_pickup' }],
    });
  });

  it("writes amounts in the currency's own decimals (JPY none, KWD three)", async () => {
    await connector.decide({ credentials: credentials(), order: order(1299, { currency: 'JPY' }) });
    expect(fake.orders.at(-1)!.total_price).toBe('1299');
    await connector.decide({ credentials: credentials(), order: order(1299, { currency: 'KWD' }) });
    expect(fake.orders.at(-1)!.total_price).toBe('1.299');
  });

  it('rejects a declined order and holds a submitted one for review', async () => {
    expect((await connector.decide({ credentials: credentials(), order: order(2005) })).decision).toBe('reject');
    expect((await connector.decide({ credentials: credentials(), order: order(2300) })).decision).toBe('review');
  });

  it('answers error, never reject, for an undocumented status, a 500, a timeout and each fault', async () => {
    expect((await connector.decide({ credentials: credentials(), order: order(5001) })).decision).toBe('error');
    expect((await connector.decide({ credentials: credentials(), order: order(5000) })).decision).toBe('error');
    const slow = await connector.decide({ credentials: credentials(), order: order(2409) });
    expect(slow).toEqual({ decision: 'error', raw: { status: 'timeout', description: null } });
    for (const status of [401, 429, 500] as const) {
      fake.failNext(status);
      expect(await connector.decide({ credentials: credentials(), order: order(1000) })).toMatchObject({
        decision: 'error',
        raw: { status: `http_${status}` },
      });
    }
  });

  it('is refused by the provider when the signature is made with another token', async () => {
    const outcome = await connector.decide({
      credentials: { shop_domain: RISKIFIED_FAKE_SHOP, auth_token: 'another-token-0123456789' },
      order: order(1000),
    });
    expect(outcome).toEqual({ decision: 'error', raw: { status: 'http_401', description: 'HMAC signature mismatch' } });
  });

  it('answers error without calling when credentials are missing', async () => {
    const before = fake.requests.length;
    expect(await connector.decide({ credentials: {}, order: order(1000) })).toEqual({
      decision: 'error',
      raw: { status: 'invalid_request', description: null },
    });
    expect(fake.requests.length).toBe(before);
  });

  it('is registered as an anti-fraud connector; production withholds the sandbox service', () => {
    const registry = createAntiFraudRegistry();
    expect(registry.find('riskified-anti-fraud')).toBeInstanceOf(RiskifiedAntiFraudConnector);
    expect(registry.definitions().map((d) => d.id)).toEqual(['mock-anti-fraud', 'riskified-anti-fraud']);
    expect(registry.builtIn()?.definition.id).toBe('mock-anti-fraud');
    expect(() => registry.register(new RiskifiedAntiFraudConnector())).toThrow('registered twice');
    const odd = new RiskifiedAntiFraudConnector();
    Object.defineProperty(odd, 'definition', { value: { ...odd.definition, id: 'riskified-card' } });
    expect(() => registry.register(odd)).toThrow('<provider>-anti-fraud');
    expect(
      registry
        .withholdSandbox()
        .definitions()
        .map((d) => d.id),
    ).toEqual(['riskified-anti-fraud']);
    expect(registry.builtIn()).toBeNull();
    expect(registry.find('mock-anti-fraud')).toBeNull();
  });
});

describe('riskified-anti-fraud updates after the decision (decision 0143)', () => {
  const id = '0190f1c2-0000-7000-8000-0000000000a1';
  const at = new Date('2026-12-06T12:05:00Z');
  beforeAll(async () => {
    await connector.decide({ credentials: credentials(), order: order(1299, { transactionId: id }) });
  });
  const update = (u: Parameters<RiskifiedAntiFraudConnector['updateTransaction']>[0]['update']) =>
    connector.updateTransaction({ credentials: credentials(), transactionId: id, update: u });

  it('an approved authorization is a signed Decision with external_status approved, in major units', async () => {
    const delivery = await update({
      kind: 'approved',
      at,
      amount: 1299,
      currency: 'USD',
      authorizationId: 'psp-auth-1',
    });
    expect(delivery).toEqual({ result: 'sent', status: 'http_200', description: null });
    expect(fake.updates.at(-1)).toEqual({
      path: '/api/decision',
      body: {
        order: {
          id,
          decision: { external_status: 'approved', decided_at: at.toISOString(), amount: 12.99, currency: 'USD' },
          payment_details: { authorization_id: 'psp-auth-1' },
        },
      },
    });
  });

  it('a declined authorization is a Checkout Denied with the authorization error', async () => {
    const delivery = await update({ kind: 'declined', at, errorCode: 'insufficient_funds', message: 'Not enough' });
    expect(delivery.result).toBe('sent');
    expect(fake.updates.at(-1)).toEqual({
      path: '/api/checkout_denied',
      body: {
        checkout: {
          id,
          payment_details: [
            {
              authorization_error: {
                created_at: at.toISOString(),
                error_code: 'insufficient_funds',
                message: 'Not enough',
              },
            },
          ],
        },
      },
    });
  });

  it('a void is a Cancel, a refund a Partial-Refund (JPY without decimals), a chargeback its details', async () => {
    expect((await update({ kind: 'canceled', at, reason: 'voided' })).result).toBe('sent');
    expect(fake.updates.at(-1)).toEqual({
      path: '/api/cancel',
      body: { order: { id, cancelled_at: at.toISOString(), cancel_reason: 'voided' } },
    });
    const refund = { kind: 'refunded' as const, at, refundId: 'r-1', amount: 500, currency: 'JPY', reason: null };
    expect((await update(refund)).result).toBe('sent');
    expect(fake.updates.at(-1)!.body).toEqual({
      order: { id, refunds: [{ refund_id: 'r-1', amount: 500, currency: 'JPY', refunded_at: at.toISOString() }] },
    });
    const chargeback = await connector.reportChargeback({
      credentials: credentials(),
      transactionId: id,
      chargeback: {
        id: 'cb-1',
        at,
        amount: 1299,
        currency: 'USD',
        reasonCode: '10.4',
        reasonDescription: 'Fraud',
        gateway: 'mock-card',
      },
    });
    expect(chargeback.result).toBe('sent');
    expect(fake.updates.at(-1)).toEqual({
      path: '/api/chargeback',
      body: {
        order: {
          id,
          chargeback_details: {
            id: 'cb-1',
            chargeback_at: at.toISOString(),
            chargeback_amount: 12.99,
            chargeback_currency: 'USD',
            reason_code: '10.4',
            reason_description: 'Fraud',
            gateway: 'mock-card',
          },
        },
      },
    });
  });

  it('a 5xx, a 429 and a timeout are worth another try; a 4xx, an unknown order and no credentials are refused', async () => {
    const approved = { kind: 'approved' as const, at, amount: 1299, currency: 'USD', authorizationId: null };
    for (const status of [500, 503, 429] as const) {
      fake.failNext(status);
      expect(await update(approved)).toMatchObject({ result: 'failed', status: `http_${status}` });
    }
    fake.stallNext(3_000);
    expect(await update(approved)).toEqual({ result: 'failed', status: 'timeout', description: null });
    fake.failNext(400);
    expect(await update(approved)).toMatchObject({ result: 'refused', status: 'http_400' });
    const unknown = await connector.updateTransaction({
      credentials: credentials(),
      transactionId: '0190f1c2-0000-7000-8000-0000000000ff',
      update: approved,
    });
    expect(unknown).toEqual({ result: 'refused', status: 'http_404', description: 'Order not found' });
    const before = fake.requests.length;
    expect(await connector.updateTransaction({ credentials: {}, transactionId: id, update: approved })).toEqual({
      result: 'refused',
      status: 'invalid_request',
      description: null,
    });
    expect(fake.requests.length).toBe(before);
  });

  it('is refused by the provider when the signature is made with another token', async () => {
    const delivery = await connector.updateTransaction({
      credentials: { shop_domain: RISKIFIED_FAKE_SHOP, auth_token: 'another-token-0123456789' },
      transactionId: id,
      update: { kind: 'canceled', at, reason: 'voided' },
    });
    expect(delivery).toEqual({ result: 'refused', status: 'http_401', description: 'HMAC signature mismatch' });
  });
});
