import { createHmac } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { AdyenIdealConnector } from '../../src/connectors/adyen/adyen-ideal.connector.ts';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { runConnectorContract, type ContractHarness } from './contract.ts';

/**
 * adyen-ideal against the local Adyen fake, with the contract's redirect variant: every payment
 * waits for the buyer at the bank (RedirectShopper); the buyer's answer there (Y approves, N
 * cancels) comes back as `redirectResult`, which the status query completes with /payments/details.
 */
let fake: AdyenFake;
let connector: AdyenIdealConnector;
const HMAC = `${'C0FFEE'.repeat(10)}C0FF`;

beforeAll(async () => {
  fake = await startAdyenFake();
  connector = new AdyenIdealConnector({ baseUrls: { 'adyen-card': fake.baseUrl } });
});
afterAll(async () => fake.close());

const EVENT_CODES = {
  capture_succeeded: 'CAPTURE',
  refund_succeeded: 'REFUND',
  chargeback_opened: 'NOTIFICATION_OF_CHARGEBACK',
} as const;

function notification(kind: keyof typeof EVENT_CODES, psp: string, amount: number, key: string) {
  const item = {
    pspReference: `MOD${psp.slice(3)}`,
    originalReference: psp,
    merchantAccountCode: ADYEN_FAKE_MERCHANT,
    merchantReference: 'ref',
    amount: { value: amount, currency: 'EUR' },
    eventCode: EVENT_CODES[kind],
    success: 'true',
  };
  const text = [item.pspReference, psp, ADYEN_FAKE_MERCHANT, 'ref', amount, 'EUR', item.eventCode, 'true'].join(':');
  const hmacSignature = createHmac('sha256', Buffer.from(key, 'hex')).update(text).digest('base64');
  return {
    live: 'false',
    notificationItems: [{ NotificationRequestItem: { ...item, additionalData: { hmacSignature } } }],
  };
}

/** The payment waiting for its buyer (Adyen's RedirectShopper answer carries no pspReference). */
const waiting = () => [...fake.payments.values()].filter((p) => p.status === 'redirect').at(-1)!;

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({ api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: HMAC }),
  currency: 'EUR',
  approve: { number: '', amount: 1000 },
  // The buyer cancels at the bank: Adyen's Cancelled (mapped like a card's Cancelled).
  decline: { number: '', amount: 2005, errorCode: 'do_not_honor' },
  redirect: {
    method: 'ideal',
    capturedAtOnce: true,
    statusOnlyWithReturn: true,
    approve: () => {
      const payment = waiting();
      return { redirectResult: `${payment.value === 2005 ? 'N' : 'Y'}.${payment.pspReference}` };
    },
    madeFor: () => [...fake.payments.values()].filter((p) => p.value === 2409).at(-1)?.pspReference ?? null,
  },
  unanswered: () => ({ card: { number: '', amount: 2409 }, timeoutMs: 5000 }),
  webhook: (kind, psp, amount, tamper) => ({
    headers: { 'content-type': 'application/json' },
    rawBody: Buffer.from(JSON.stringify(notification(kind, psp, amount, tamper ? 'AB'.repeat(32) : HMAC))),
    url: 'http://localhost/webhooks',
  }),
  fault: (status) => fake.failNext(status),
  asyncModifications: true,
});

runConnectorContract('adyen-ideal', harness);
