import { afterAll, beforeAll } from 'vitest';
import { GoCardlessConnector } from '../../src/connectors/gocardless/gocardless.connector.ts';
import {
  GOCARDLESS_FAKE_TOKEN,
  GOCARDLESS_FAKE_WEBHOOK_SECRET,
  startGoCardlessFake,
  type GoCardlessFake,
} from '../fakes/gocardless-fake.ts';
import { runConnectorContract, type ContractHarness } from './contract.ts';

/** gocardless-gocardless against the local GoCardless fake (test/fakes/gocardless-fake.ts). */
let fake: GoCardlessFake;
let connector: GoCardlessConnector;

beforeAll(async () => {
  fake = await startGoCardlessFake();
  connector = new GoCardlessConnector({ baseUrls: { 'gocardless-gocardless': fake.url }, timeoutMs: 2000 });
});
afterAll(async () => fake.close());

/** The payment event GoCardless sends for each kind, about a payment of the billing request. */
function delivery(
  kind: 'capture_succeeded' | 'refund_succeeded' | 'chargeback_opened',
  id: string,
  amount: number,
  tamper: boolean,
) {
  if (kind === 'capture_succeeded') return fake.advance(fake.collect(id, amount, 'submitted').id, 'confirmed', tamper);
  const payment = fake.collect(id, amount, 'confirmed');
  if (kind === 'chargeback_opened') return fake.advance(payment.id, 'charged_back', tamper);
  return fake.advance(fake.refundOf(payment.id, amount, 'submitted').id, 'paid', tamper);
}

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({ access_token: GOCARDLESS_FAKE_TOKEN, webhook_secret: GOCARDLESS_FAKE_WEBHOOK_SECRET }),
  currency: 'GBP',
  approve: { number: '', amount: 1000 },
  decline: { number: '', amount: 2005, errorCode: 'do_not_honor' },
  redirect: {
    method: 'gocardless',
    approve: (pending) => fake.approve(pending.providerTransactionId!),
    madeFor: (key) => fake.billingRequestOfKey(key)?.id ?? null,
  },
  unanswered: () => ({ card: { number: '', amount: 2409 }, timeoutMs: 1000 }),
  webhook: (kind, id, amount, tamper) => delivery(kind, id, amount, tamper),
  fault: (status) => fake.failNext(status),
  // A payment is collected days later; the mandate's cancellation (a void) answers at once.
  asyncModifications: true,
  voidOutcome: 'succeeded',
  collect: (_id, capture) => {
    fake.advance(capture!, 'confirmed');
  },
});

runConnectorContract('gocardless-gocardless', harness);
