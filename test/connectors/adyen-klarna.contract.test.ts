import { afterAll, beforeAll } from 'vitest';
import { AdyenKlarnaConnector } from '../../src/connectors/adyen/adyen-klarna.connector.ts';
import type { CartLine } from '../../src/connectors/connector.ts';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { signedNotification } from '../fakes/adyen-fake-webhooks.ts';
import { runConnectorContract, type ContractHarness } from './contract.ts';

/**
 * adyen-klarna against the local Adyen fake, with the contract's redirect variant: every payment
 * carries the order's lines and waits for the buyer on Klarna's page (Y approves, N is Klarna's
 * refusal); the return's `redirectResult` is completed with /payments/details. Captures (partial,
 * with a line for the part), cancels and refunds are Adyen modifications, pending until the webhook.
 */
let fake: AdyenFake;
let connector: AdyenKlarnaConnector;
const HMAC = `${'B1A2'.repeat(16)}`;

beforeAll(async () => {
  fake = await startAdyenFake();
  connector = new AdyenKlarnaConnector({ baseUrls: { 'adyen-card': fake.baseUrl } });
});
afterAll(async () => fake.close());

const EVENT_CODES = {
  capture_succeeded: 'CAPTURE',
  refund_succeeded: 'REFUND',
  chargeback_opened: 'NOTIFICATION_OF_CHARGEBACK',
} as const;

/** Two lines of the amount: one item with 19% VAT included, and the rest with none. */
const cart = (amount: number): CartLine[] => [
  {
    name: 'Lamp',
    quantity: 1,
    unitAmount: 595,
    discountAmount: null,
    taxAmount: 95,
    sku: 'LAMP-1',
    externalIdentifier: null,
    productUrl: 'https://shop.example/lamp',
    imageUrl: null,
  },
  {
    name: 'Shipping',
    quantity: 1,
    unitAmount: amount - 595,
    discountAmount: null,
    taxAmount: 0,
    sku: null,
    externalIdentifier: null,
    productUrl: null,
    imageUrl: null,
  },
];

const waiting = () => [...fake.payments.values()].filter((p) => p.status === 'redirect').at(-1)!;

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({ api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: HMAC }),
  currency: 'EUR',
  country: 'DE',
  cartItems: cart,
  buyer: { name: 'Erika Mustermann', emailAddress: 'erika@example.com', taxId: null },
  approve: { number: '', amount: 1000 },
  // Klarna's risk check refuses the buyer: Adyen's Refused, reason 2.
  decline: { number: '', amount: 2005, errorCode: 'do_not_honor' },
  redirect: {
    method: 'klarna',
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

runConnectorContract('adyen-klarna', harness);
