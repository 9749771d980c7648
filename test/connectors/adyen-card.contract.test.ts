import { createHmac } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { AdyenCardConnector } from '../../src/connectors/adyen/adyen.connector.ts';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { runConnectorContract, type ContractHarness } from './contract.ts';

/** adyen-card against the local Adyen fake (amount-driven outcomes, test/fakes/adyen-fake.ts). */
let fake: AdyenFake;
let connector: AdyenCardConnector;
const HMAC = `${'C0FFEE'.repeat(10)}C0FF`;

beforeAll(async () => {
  fake = await startAdyenFake();
  connector = new AdyenCardConnector({ baseUrls: { 'adyen-card': fake.baseUrl } });
});
afterAll(async () => fake.close());

const EVENT_CODES = {
  capture_succeeded: 'CAPTURE',
  refund_succeeded: 'REFUND',
  chargeback_opened: 'NOTIFICATION_OF_CHARGEBACK',
} as const;

/** A notification item signed the way Adyen documents (HMAC-SHA256 of the colon-joined fields, hex key). */
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
  const text = [
    item.pspReference,
    item.originalReference,
    item.merchantAccountCode,
    item.merchantReference,
    amount,
    'EUR',
    item.eventCode,
    'true',
  ].join(':');
  const hmacSignature = createHmac('sha256', Buffer.from(key, 'hex')).update(text).digest('base64');
  return {
    live: 'false',
    notificationItems: [{ NotificationRequestItem: { ...item, additionalData: { hmacSignature } } }],
  };
}

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({ api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: HMAC }),
  currency: 'EUR',
  approve: { number: '4111111145551142', amount: 1000 },
  decline: { number: '4111111145551142', amount: 2051, errorCode: 'insufficient_funds' },
  threeDS: { number: '4212345678910006', amount: 2300, expect: 'redirect' },
  unanswered: () => ({ card: { number: '4111111145551142', amount: 2409 }, timeoutMs: 5000 }),
  webhook: (kind, psp, amount, tamper) => ({
    headers: { 'content-type': 'application/json' },
    rawBody: Buffer.from(JSON.stringify(notification(kind, psp, amount, tamper ? 'AB'.repeat(32) : HMAC))),
    url: 'http://localhost/webhooks',
  }),
  fault: (status) => fake.failNext(status),
  asyncModifications: true,
});

runConnectorContract('adyen-card', harness);
