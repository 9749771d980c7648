import { describe, expect, it } from 'vitest';
import type { AuthorizeRequest } from '../connector.ts';
import { MockCardConnector } from './mock-card.connector.ts';
import { simulatedOutcome } from './mock-card-simulation.ts';

const connector = new MockCardConnector();
const request = (credentials: Record<string, string>, idempotencyKey = 'attempt-1'): AuthorizeRequest => ({
  idempotencyKey,
  credentials,
  options: null,
  reference: 'r',
  amount: 1000,
  currency: 'USD',
  country: 'US',
  intent: 'authorize',
  instrument: {
    kind: 'card',
    number: '4111111111111111',
    expirationDate: '12/39',
    securityCode: '123',
    scheme: 'visa',
  },
  merchantInitiated: false,
  isSubsequentPayment: false,
  paymentSource: 'ecommerce',
  threeDSecure: null,
  approvalBaseUrl: 'http://localhost',
});
const sync = (credentials: Record<string, string>) =>
  connector.sync({
    idempotencyKey: 'attempt-1',
    credentials,
    options: null,
    operation: 'authorize',
    providerTransactionId: null,
    reference: 'r',
    amount: 1000,
    currency: 'USD',
    payment: { method: 'card', bin: '411111', last4: '1111', authorizedAmount: 1000 },
    intent: 'authorize',
    buyerApproved: null,
  });

describe('service-level simulation', () => {
  it('fails, declines or times out every authorization, and a status query agrees', async () => {
    await expect(connector.authorize(request({ simulate_outcome: 'unavailable' }))).rejects.toMatchObject({
      kind: 'unavailable',
    });
    expect((await sync({ simulate_outcome: 'unavailable' })).status).toBe('not_found');
    expect(await connector.authorize(request({ simulate_outcome: 'error' }))).toMatchObject({
      status: 'failed',
      errorCode: 'service_error',
    });
    expect((await sync({ simulate_outcome: 'error' })).status).toBe('failed');
    expect(await connector.authorize(request({ simulate_outcome: 'decline' }))).toMatchObject({
      status: 'declined',
      errorCode: 'do_not_honor',
    });
    await expect(connector.authorize(request({ simulate_outcome: 'timeout' }))).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect((await sync({ simulate_outcome: 'timeout' })).status).toBe('authorized');
    expect(await connector.authorize(request({ simulate_outcome: 'none' }))).toMatchObject({ status: 'authorized' });
  });

  it('affects the given share of attempts, the same attempt always alike', () => {
    let hit = 0;
    for (let i = 0; i < 2000; i++)
      if (simulatedOutcome({ simulate_outcome: 'error', simulate_share: '25' }, `k${i}`) === 'error') hit++;
    expect(hit / 2000).toBeGreaterThan(0.21);
    expect(hit / 2000).toBeLessThan(0.29);
    expect(simulatedOutcome({ simulate_outcome: 'error', simulate_share: '25' }, 'k7')).toBe(
      simulatedOutcome({ simulate_outcome: 'error', simulate_share: '25' }, 'k7'),
    );
  });

  it('refuses bad simulation fields when the credentials are verified', async () => {
    const outcome = await connector.verifyCredentials({
      merchant_id: 'm',
      simulate_outcome: 'explode',
      simulate_share: '0',
    });
    expect(outcome.problems.map((p) => p.key)).toEqual(['simulate_outcome', 'simulate_share']);
  });
});
