import { describe, expect, it } from 'vitest';
import { boundedCall } from '../../src/connectors/call.ts';
import type { PaymentConnector, PayoutInstrument, PayoutRequest } from '../../src/connectors/connector.ts';
import type { InboundWebhookRequest } from '../../src/connectors/connector-webhooks.ts';
import { STANDARD_ERROR_CODES } from '../../src/connectors/error-codes.ts';
import { uuidv7 } from '../../src/lib/ids.ts';

/**
 * The payout part of the connector contract (docs/connectors.md, "The contract test"), for
 * connectors with `capabilities.payout`: a payout is accepted (`succeeded`, or `pending` at an
 * asynchronous provider) with the provider's id; `syncPayout` reads it by that id and, after a
 * lost answer, by the idempotency key alone; the provider's final answer (and its signed webhook,
 * where it sends one) is `succeeded`, a refused payout `declined` or `failed` with a standardized
 * code; a tampered webhook is rejected.
 */
export interface PayoutHarness {
  connector(): PaymentConnector;
  credentials(): Record<string, string>;
  currency: string;
  /** Where the payouts go (a card, or an account at the provider). */
  instrument(): PayoutInstrument | Promise<PayoutInstrument>;
  /** A payout the provider pays. */
  amount: number;
  /** A payout the provider refuses (at once or when it settles), with our code. */
  refused: { amount: number; errorCode: string };
  /** A payout made at the provider whose answer never arrives, and the bound of the call. */
  unanswered: { amount: number; timeoutMs: number };
  /**
   * The provider settles the payout (pays or refuses it) as it does later; its signed webhook about
   * it when it sends one (`tamper` breaks the signature), else null (a provider whose fake settles
   * a payout when it is read: nothing to do).
   */
  settle(providerPayoutId: string, tamper: boolean): InboundWebhookRequest | null;
}

async function request(h: PayoutHarness, amount: number): Promise<PayoutRequest> {
  return {
    idempotencyKey: uuidv7(),
    credentials: h.credentials(),
    options: null,
    reference: `po${Date.now()}`,
    amount,
    currency: h.currency,
    category: null,
    instrument: await h.instrument(),
    merchant: null,
  };
}

async function sync(h: PayoutHarness, r: PayoutRequest, providerPayoutId: string | null) {
  const account = r.instrument.kind === 'provider-account' ? r.instrument : null;
  return h.connector().syncPayout!({
    idempotencyKey: r.idempotencyKey,
    credentials: r.credentials,
    options: null,
    providerPayoutId,
    reference: r.reference,
    amount: r.amount,
    currency: r.currency,
    card: { bin: null, last4: null },
    account: account ? { method: account.method, accountId: account.accountId } : null,
  });
}

export function runPayoutContract(name: string, harness: () => PayoutHarness): void {
  describe(`payout contract: ${name}`, () => {
    it("accepts a payout with the provider's id, and sync reads it by that id until the provider's final answer", async () => {
      const h = harness();
      const r = await request(h, h.amount);
      const outcome = await h.connector().payout!(r);
      expect(['succeeded', 'pending']).toContain(outcome.status);
      expect(outcome.providerPayoutId).toEqual(expect.any(String));
      // Read before the provider settled it: as answered, or already paid (a provider that pays on its own clock).
      expect([outcome.status, 'succeeded']).toContain((await sync(h, r, outcome.providerPayoutId)).status);
      h.settle(outcome.providerPayoutId!, false);
      expect(await sync(h, r, outcome.providerPayoutId)).toMatchObject({
        status: 'succeeded',
        providerPayoutId: outcome.providerPayoutId,
      });
    });

    it('answers a refused payout declined or failed, with a standardized code and the raw code kept', async () => {
      const h = harness();
      const r = await request(h, h.refused.amount);
      const first = await h.connector().payout!(r);
      if (first.status === 'pending') h.settle(first.providerPayoutId!, false);
      const final = first.status === 'pending' ? await sync(h, r, first.providerPayoutId) : first;
      expect(['declined', 'failed']).toContain(final.status);
      expect(STANDARD_ERROR_CODES).toContain(final.errorCode);
      expect(final.errorCode).toBe(h.refused.errorCode);
      expect(final.rawResponseCode).toEqual(expect.any(String));
    });

    it('leaves an unanswered payout unknown (timeout), and sync finds the same payout by the idempotency key', async () => {
      const h = harness();
      const r = await request(h, h.unanswered.amount);
      const result = await boundedCall(() => h.connector().payout!(r), { timeoutMs: h.unanswered.timeoutMs });
      expect(result).toMatchObject({ ok: false, kind: 'timeout' });
      const found = await sync(h, r, null);
      expect(found.providerPayoutId).toEqual(expect.any(String));
      expect((await sync(h, r, null)).providerPayoutId).toBe(found.providerPayoutId);
    });

    it("maps the provider's signed payout webhook, and rejects a tampered one", async () => {
      const h = harness();
      const r = await request(h, h.amount);
      const outcome = await h.connector().payout!(r);
      const webhook = h.settle(outcome.providerPayoutId!, false);
      if (!webhook) return;
      const parsed = await h.connector().parseWebhook!(h.credentials(), webhook);
      expect(parsed).toMatchObject({ status: 'accepted' });
      if (parsed.status === 'accepted')
        expect(parsed.events.flatMap((e) => e.actions)).toEqual([
          expect.objectContaining({
            kind: 'payout_succeeded',
            providerTransactionId: outcome.providerPayoutId,
            providerReferenceId: r.idempotencyKey,
          }),
        ]);
      const other = await h.connector().payout!(await request(h, h.amount));
      const tampered = h.settle(other.providerPayoutId!, true)!;
      expect(await h.connector().parseWebhook!(h.credentials(), tampered)).toMatchObject({ status: 'rejected' });
    });
  });
}
