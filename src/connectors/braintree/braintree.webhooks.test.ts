import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  BRAINTREE_WEBHOOK_MAX_AGE_SECONDS,
  graphQlIdOf,
  parseBraintreeWebhook as parseAt,
} from './braintree.webhooks.ts';

// The notifications below are stamped 2026-11-25T12:00:00Z; they are read five minutes later.
const STAMPED = Date.parse('2026-11-25T12:00:00Z');
const parseBraintreeWebhook = (
  keys: Record<string, string>,
  request: Parameters<typeof parseAt>[1],
  now = STAMPED + 300_000,
) => parseAt(keys, request, () => now);
const credentials = {
  environment: 'sandbox',
  merchant_id: 'm',
  public_key: 'pub_key_1',
  private_key: 'priv_key_secret',
};

/** Signs the way Braintree documents (HMAC-SHA1 under SHA1(private key)), independently of the connector. */
function form(xml: string, keys = credentials) {
  const payload = Buffer.from(xml).toString('base64');
  const signature = createHmac('sha1', createHash('sha1').update(keys.private_key).digest())
    .update(payload)
    .digest('hex');
  return {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: Buffer.from(
      new URLSearchParams({ bt_signature: `${keys.public_key}|${signature}`, bt_payload: payload }).toString(),
    ),
    url: 'https://svc.example/hooks',
  };
}

const notification = (
  kind: string,
  subject: string,
  timestamp = '<timestamp type="datetime">2026-11-25T12:00:00Z</timestamp>',
) => `<?xml version="1.0" encoding="UTF-8"?>
<notification>${timestamp}<kind>${kind}</kind><subject>${subject}</subject></notification>`;

const transaction = (type: string, extra = '') =>
  `<transaction><id>tx1</id><type>${type}</type><amount>15.00</amount><currency-iso-code>USD</currency-iso-code><status>settled</status>${extra}</transaction>`;

describe('happy', () => {
  it('maps settlements of sales and credits (refunds) onto the payment, in our minor units', () => {
    expect(
      parseBraintreeWebhook(credentials, form(notification('transaction_settled', transaction('sale')))),
    ).toMatchObject({
      status: 'accepted',
      events: [
        {
          eventId: expect.stringMatching(/^braintree:[0-9a-f]{64}$/),
          actions: [
            {
              kind: 'capture_succeeded',
              providerTransactionId: graphQlIdOf('tx1'),
              providerReferenceId: null,
              amount: 1500,
              currency: 'USD',
            },
          ],
        },
      ],
    });
    const refund = parseBraintreeWebhook(
      credentials,
      form(
        notification(
          'transaction_settlement_declined',
          transaction(
            'credit',
            '<refunded-transaction-id>orig1</refunded-transaction-id><processor-settlement-response-code>4001</processor-settlement-response-code>',
          ),
        ),
      ),
    );
    expect(refund).toMatchObject({
      events: [
        {
          actions: [
            {
              kind: 'refund_failed',
              providerTransactionId: graphQlIdOf('orig1'),
              providerReferenceId: graphQlIdOf('tx1'),
              rawResponseCode: '4001',
            },
          ],
        },
      ],
    });
  });

  it('maps disputes, and accepts a check with no actions', () => {
    const dispute = (kind: string) =>
      form(
        notification(
          kind,
          '<dispute><id>dp1</id><amount-disputed>15.00</amount-disputed><currency-iso-code>USD</currency-iso-code><reason>fraud</reason><transaction><id>tx9</id><amount>15.00</amount></transaction></dispute>',
        ),
      );
    const kinds = [
      ['dispute_opened', 'chargeback_opened'],
      ['dispute_won', 'chargeback_won'],
      ['dispute_lost', 'chargeback_lost'],
      ['dispute_accepted', 'chargeback_lost'],
      ['dispute_auto_accepted', 'chargeback_lost'],
      ['dispute_expired', 'chargeback_lost'],
    ];
    for (const [kind, action] of kinds) {
      expect(parseBraintreeWebhook(credentials, dispute(kind!)), kind).toMatchObject({
        status: 'accepted',
        events: [
          {
            actions: [
              { kind: action, providerTransactionId: graphQlIdOf('tx9'), providerReferenceId: 'dp1', amount: 1500 },
            ],
          },
        ],
      });
    }
    // The merchant's own steps (evidence sent, under review) move no money: accepted, no action.
    for (const kind of ['dispute_disputed', 'dispute_under_review', 'constructor', 'toString']) {
      expect(parseBraintreeWebhook(credentials, dispute(kind)), kind).toMatchObject({
        status: 'accepted',
        events: [{ actions: [] }],
      });
    }
    expect(
      parseBraintreeWebhook(credentials, form(notification('check', '<check type="boolean">true</check>'))),
    ).toMatchObject({ status: 'accepted', events: [{ actions: [] }] });
  });

  it('names a transaction the way the GraphQL API does', () => {
    expect(graphQlIdOf('ke58pm68')).toBe(Buffer.from('transaction_ke58pm68').toString('base64').replace(/=+$/, ''));
  });
});

describe('errors', () => {
  it('rejects a form without the two fields, a payload that is not base64, and XML that is not a notification', () => {
    expect(parseBraintreeWebhook(credentials, { ...form('<x/>'), rawBody: Buffer.from('a=b') })).toMatchObject({
      status: 'rejected',
    });
    expect(
      parseBraintreeWebhook(credentials, {
        ...form('<x/>'),
        rawBody: Buffer.from('bt_signature=a|b&bt_payload=%3C%3E'),
      }),
    ).toMatchObject({ status: 'rejected', reason: expect.stringContaining('base64') });
    expect(parseBraintreeWebhook(credentials, form('<other><kind>check</kind></other>'))).toMatchObject({
      status: 'rejected',
    });
    expect(parseBraintreeWebhook(credentials, form('<notification><kind>check</notification>'))).toMatchObject({
      status: 'rejected',
    });
  });
});

describe('security', () => {
  it('checks the signed timestamp: older than Braintree retries for (24 hours, plus an hour), or ahead of our clock by more than 5 minutes, is rejected', () => {
    const settled = form(notification('transaction_settled', transaction('sale')));
    expect(BRAINTREE_WEBHOOK_MAX_AGE_SECONDS).toBe(25 * 3600);
    expect(parseBraintreeWebhook(credentials, settled, STAMPED + 24 * 3600_000)).toMatchObject({ status: 'accepted' });
    expect(parseBraintreeWebhook(credentials, settled, STAMPED + 25 * 3600_000 + 1000)).toMatchObject({
      status: 'rejected',
      reason: expect.stringContaining('timestamp'),
    });
    expect(parseBraintreeWebhook(credentials, settled, STAMPED - 299_000)).toMatchObject({ status: 'accepted' });
    expect(parseBraintreeWebhook(credentials, settled, STAMPED - 301_000)).toMatchObject({
      status: 'rejected',
      reason: expect.stringContaining('timestamp'),
    });
    for (const timestamp of [
      '',
      '<timestamp type="datetime">yesterday</timestamp>',
      '<timestamp type="datetime">2026-11-25</timestamp>',
    ]) {
      expect(parseBraintreeWebhook(credentials, form(notification('check', '', timestamp))), timestamp).toMatchObject({
        status: 'rejected',
        reason: expect.stringContaining('timestamp'),
      });
    }
  });

  it("rejects another key pair's signature, a changed payload, and entity declarations", () => {
    expect(
      parseBraintreeWebhook(credentials, form(notification('check', ''), { ...credentials, private_key: 'other' })),
    ).toMatchObject({ status: 'rejected' });
    expect(
      parseBraintreeWebhook(credentials, form(notification('check', ''), { ...credentials, public_key: 'other_pub' })),
    ).toMatchObject({ status: 'rejected' });
    const genuine = new URLSearchParams(
      form(notification('transaction_settled', transaction('sale'))).rawBody.toString(),
    );
    genuine.set(
      'bt_payload',
      Buffer.from(notification('transaction_settled', transaction('sale').replace('15.00', '1500.00'))).toString(
        'base64',
      ),
    );
    expect(
      parseBraintreeWebhook(credentials, { headers: {}, rawBody: Buffer.from(genuine.toString()), url: '' }),
    ).toMatchObject({ status: 'rejected' });
    expect(
      parseBraintreeWebhook(
        credentials,
        form('<!DOCTYPE x [<!ENTITY a "b">]><notification><kind>check</kind></notification>'),
      ),
    ).toMatchObject({ status: 'rejected' });
  });
});
