import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MockCardConnector } from './mock-card.connector.ts';
import { AMOUNT_SCENARIOS, INCREMENT_AMOUNT_SCENARIOS, incrementScenarioOf } from './mock-card.scenarios.ts';

const sandboxPage = readFileSync(new URL('../../../docs/sandbox.md', import.meta.url), 'utf8');
const connector = new MockCardConnector();
const request = (amount: number) => ({
  idempotencyKey: `inc-${amount}`,
  credentials: { merchant_id: 'm' },
  options: null,
  payment: { method: 'card', bin: '411111', last4: '1111', authorizedAmount: 1000 },
  providerTransactionId: 'p',
  reference: 'r',
  amount,
  currency: 'USD',
});

describe('increment scenarios', () => {
  it('lists every increase amount in docs/sandbox.md, apart from the payment amounts', () => {
    for (const [amount, entry] of INCREMENT_AMOUNT_SCENARIOS) {
      expect(sandboxPage).toContain(`| \`${amount}\` | ${entry.description} |`);
      expect(AMOUNT_SCENARIOS.has(amount)).toBe(false);
    }
  });

  it('approves any other increase, and a status query agrees with each answer', async () => {
    expect(incrementScenarioOf(250).kind).toBe('approve');
    expect(await connector.incrementAuthorization(request(250))).toMatchObject({ status: 'succeeded' });
    expect(await connector.incrementAuthorization(request(4005))).toMatchObject({
      status: 'declined',
      errorCode: 'do_not_honor',
    });
    await expect(connector.incrementAuthorization(request(4408))).rejects.toMatchObject({ kind: 'timeout' });
    await expect(connector.incrementAuthorization(request(4094))).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await connector.incrementAuthorization(request(4096))).toMatchObject({ status: 'failed' });
    const sync = (amount: number) =>
      connector.sync({ ...request(amount), operation: 'increment', intent: 'authorize', buyerApproved: null });
    expect((await sync(4408)).status).toBe('authorized');
    expect((await sync(4094)).status).toBe('not_found');
    expect((await sync(4096)).status).toBe('failed');
    // An increase it never received (nothing was sent with that key).
    expect((await sync(251)).status).toBe('not_found');
  });
});
