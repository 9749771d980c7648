import { afterAll, beforeAll } from 'vitest';
import { AdyenSepaConnector } from '../../src/connectors/adyen/adyen-sepa.connector.ts';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { signedNotification } from '../fakes/adyen-fake-webhooks.ts';
import { runConnectorContract, type ContractHarness } from './contract.ts';

/**
 * adyen-sepa against the local Adyen fake, with the contract's redirect variant captured at once:
 * every payment is a Hosted Checkout session whose page (the approval URL) takes the buyer's IBAN;
 * the buyer pays (Y) or cancels (N) there, and comes back with `sessionId` and `sessionResult`,
 * which the status query reads with `GET /sessions/{id}`.
 */
let fake: AdyenFake;
let connector: AdyenSepaConnector;
const HMAC = `${'5E9A'.repeat(16)}`;

beforeAll(async () => {
  fake = await startAdyenFake();
  connector = new AdyenSepaConnector({ baseUrls: { 'adyen-card': fake.baseUrl } });
});
afterAll(async () => fake.close());

const EVENT_CODES = {
  capture_succeeded: 'CAPTURE',
  refund_succeeded: 'REFUND',
  chargeback_opened: 'CHARGEBACK',
} as const;

/** The buyer on Adyen's page: gives an IBAN and pays (Y) or cancels (N); Adyen's redirect back names the session's result. */
async function buyer(approvalUrl: string, answer: 'Y' | 'N'): Promise<Record<string, string>> {
  const page = await fetch(`${approvalUrl}?answer=${answer}`, { redirect: 'manual' });
  const back = new URL(page.headers.get('location')!);
  return Object.fromEntries(back.searchParams);
}

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({ api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: HMAC }),
  currency: 'EUR',
  country: 'DE',
  approve: { number: '', amount: 1000 },
  // The buyer cancels on Adyen's page: the session is canceled, the payment declined.
  decline: { number: '', amount: 2005, errorCode: 'do_not_honor' },
  redirect: {
    method: 'sepa',
    capturedAtOnce: true,
    statusOnlyWithReturn: true,
    approve: (pending) => {
      const session = fake.sessions.get(pending.providerTransactionId!)!;
      return buyer(pending.approvalUrl!, session.amount.value === 2005 ? 'N' : 'Y');
    },
    madeFor: () => [...fake.sessions.values()].filter((s) => s.amount.value === 2409).at(-1)?.id ?? null,
  },
  unanswered: () => ({ card: { number: '', amount: 2409 }, timeoutMs: 5000 }),
  webhook: (kind, psp, amount, tamper) => ({
    headers: { 'content-type': 'application/json' },
    rawBody: Buffer.from(
      signedNotification(
        [
          {
            pspReference: `MOD${psp.slice(3)}`,
            originalReference: psp,
            merchantAccountCode: ADYEN_FAKE_MERCHANT,
            merchantReference: 'ref',
            amount: { value: amount, currency: 'EUR' },
            eventCode: EVENT_CODES[kind],
            success: 'true',
          },
        ],
        tamper ? 'AB'.repeat(32) : HMAC,
      ),
    ),
    url: 'http://localhost/webhooks',
  }),
  fault: (status) => fake.failNext(status),
  asyncModifications: true,
});

runConnectorContract('adyen-sepa', harness);
