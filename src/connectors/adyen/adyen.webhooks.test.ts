import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseAdyenWebhook } from './adyen.webhooks.ts';

// Adyen's documented HMAC example (docs.adyen.com, "Verify HMAC signatures"): key, item and signature.
const DOC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const DOC_ITEM = {
  pspReference: '7914073381342284',
  merchantAccountCode: 'TestMerchant',
  merchantReference: 'TestPayment-1407325143704',
  amount: { value: 1130, currency: 'EUR' },
  eventCode: 'AUTHORISATION',
  success: 'true',
  additionalData: { hmacSignature: 'coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0=' },
};
const credentials = { merchant_account: 'TestMerchant', hmac_key: DOC_KEY, api_key: 'k' };

/** Signs an item the documented way, independently of the connector's code. */
/** A NotificationRequestItem as these tests build it: the amount the signature covers, any other field. */
type Item = Record<string, unknown> & { amount: { value: number; currency: string }; additionalData?: object };

function sign(item: Item, key = DOC_KEY): Item {
  const text = [
    item.pspReference,
    item.originalReference ?? '',
    item.merchantAccountCode,
    item.merchantReference,
    item.amount.value,
    item.amount.currency,
    item.eventCode,
    item.success,
  ].join(':');
  return {
    ...item,
    additionalData: {
      ...item.additionalData,
      hmacSignature: createHmac('sha256', Buffer.from(key, 'hex')).update(text).digest('base64'),
    },
  };
}

const request = (...items: Array<Record<string, unknown>>) => ({
  headers: { 'content-type': 'application/json' },
  rawBody: Buffer.from(
    JSON.stringify({
      live: 'false',
      notificationItems: items.map((NotificationRequestItem) => ({ NotificationRequestItem })),
    }),
  ),
  url: 'https://svc.example/webhooks/adyen',
});

const item = (eventCode: string, extra: Record<string, unknown> = {}) =>
  sign({
    pspReference: 'CAP0000000000001',
    originalReference: 'PSP0000000000001',
    merchantAccountCode: 'TestMerchant',
    merchantReference: 'ref-1',
    amount: { value: 1500, currency: 'EUR' },
    eventCode,
    success: 'true',
    ...extra,
  });

describe('happy', () => {
  it("accepts Adyen's documented example and maps it to an authorization", () => {
    expect(parseAdyenWebhook(credentials, request(DOC_ITEM))).toEqual({
      status: 'accepted',
      events: [
        {
          eventId: 'adyen:AUTHORISATION:7914073381342284:true',
          actions: [
            {
              kind: 'authorization_succeeded',
              providerTransactionId: '7914073381342284',
              providerReferenceId: null,
              amount: 1130,
              currency: 'EUR',
              rawResponseCode: null,
              rawResponseDescription: null,
              // Signed: finds a redirect payment whose pspReference we do not know yet.
              reference: 'TestPayment-1407325143704',
            },
          ],
        },
      ],
    });
  });

  it('maps modifications and disputes onto the payment (originalReference), in our minor units', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['CAPTURE', {}, 'capture_succeeded'],
      ['CAPTURE', { success: 'false', reason: 'Insufficient balance' }, 'capture_failed'],
      ['CAPTURE_FAILED', {}, 'capture_failed'],
      ['CANCELLATION', {}, 'void_succeeded'],
      ['REFUND', {}, 'refund_succeeded'],
      ['REFUND', { success: 'false' }, 'refund_failed'],
      ['REFUND_FAILED', {}, 'refund_failed'],
      ['NOTIFICATION_OF_CHARGEBACK', {}, 'chargeback_opened'],
      ['CHARGEBACK', {}, 'chargeback_opened'],
      ['CHARGEBACK_REVERSED', {}, 'chargeback_won'],
      ['SECOND_CHARGEBACK', {}, 'chargeback_lost'],
      ['CANCEL_OR_REFUND', { additionalData: { 'modification.action': 'refund' } }, 'refund_succeeded'],
    ];
    for (const [code, extra, kind] of cases) {
      const outcome = parseAdyenWebhook(credentials, request(item(code, extra)));
      expect(outcome, code).toMatchObject({
        status: 'accepted',
        events: [
          {
            actions: [
              {
                kind,
                providerTransactionId: 'PSP0000000000001',
                providerReferenceId: 'CAP0000000000001',
                amount: 1500,
                currency: 'EUR',
              },
            ],
          },
        ],
      });
    }
    const clp = parseAdyenWebhook(credentials, request(item('REFUND', { amount: { value: 150000, currency: 'CLP' } })));
    expect(clp).toMatchObject({ events: [{ actions: [{ amount: 1500, currency: 'CLP' }] }] });
  });

  it('accepts events that change nothing, with no actions, and each item of a batch as its own event', () => {
    expect(parseAdyenWebhook(credentials, request(item('REPORT_AVAILABLE')))).toMatchObject({
      status: 'accepted',
      events: [{ eventId: 'adyen:REPORT_AVAILABLE:CAP0000000000001:true', actions: [] }],
    });
    const batch = parseAdyenWebhook(
      credentials,
      request(item('CAPTURE'), item('REFUND', { pspReference: 'REF0000000000001' })),
    );
    expect(batch).toMatchObject({
      status: 'accepted',
      events: [
        { eventId: 'adyen:CAPTURE:CAP0000000000001:true', actions: [{ kind: 'capture_succeeded' }] },
        { eventId: 'adyen:REFUND:REF0000000000001:true', actions: [{ kind: 'refund_succeeded' }] },
      ],
    });
  });
});

describe('settlement reports', () => {
  // The reporting guide's REPORT_AVAILABLE: the file name in pspReference, its download URL in reason.
  const report = (fileName: string, extra: Record<string, unknown> = {}) =>
    sign({
      pspReference: fileName,
      merchantAccountCode: 'TestMerchant',
      merchantReference: '',
      amount: { value: 0, currency: 'EUR' },
      eventCode: 'REPORT_AVAILABLE',
      success: 'true',
      reason: `https://ca-test.adyen.com/reports/download/MerchantAccount/TestMerchant/${fileName}`,
      eventDate: '2026-09-23T10:03:08+02:00',
      ...extra,
    });

  it('asks for the ingestion of a Settlement details report, named by its download URL, once per file', () => {
    const outcome = parseAdyenWebhook(credentials, request(report('settlement_detail_report_batch_12.csv')));
    expect(outcome).toEqual({
      status: 'accepted',
      events: [
        {
          eventId: 'adyen:REPORT_AVAILABLE:settlement_detail_report_batch_12.csv:true',
          actions: [
            {
              kind: 'settlement_report_available',
              providerTransactionId: '',
              providerReferenceId:
                'https://ca-test.adyen.com/reports/download/MerchantAccount/TestMerchant/settlement_detail_report_batch_12.csv',
              amount: null,
              currency: null,
              rawResponseCode: null,
              rawResponseDescription: null,
            },
          ],
        },
      ],
    });
    // Without a URL, or with one (unsigned) that names another file: the signed file name (the connector finds it in the merchant account's folder).
    expect(
      parseAdyenWebhook(credentials, request(report('settlement_detail_report_batch_13.csv', { reason: '' }))),
    ).toMatchObject({ events: [{ actions: [{ providerReferenceId: 'settlement_detail_report_batch_13.csv' }] }] });
    const moved = {
      ...report('settlement_detail_report_batch_13.csv'),
      reason:
        'https://ca-test.adyen.com/reports/download/MerchantAccount/TestMerchant/settlement_detail_report_batch_1.csv',
    };
    expect(parseAdyenWebhook(credentials, request(moved))).toMatchObject({
      status: 'accepted',
      events: [{ actions: [{ providerReferenceId: 'settlement_detail_report_batch_13.csv' }] }],
    });
  });

  it('ignores other reports, and a report notification that is not a success', () => {
    for (const name of [
      'received_payments_report_2026_09_22.csv',
      'payment_accounting_report_2026_09_22.csv',
      'settlement_detail_report_batch_12.xlsx',
      'settlement_detail_report_batch_.csv',
    ]) {
      expect(parseAdyenWebhook(credentials, request(report(name))), name).toMatchObject({
        status: 'accepted',
        events: [{ actions: [] }],
      });
    }
    expect(
      parseAdyenWebhook(credentials, request(report('settlement_detail_report_batch_12.csv', { success: 'false' }))),
    ).toMatchObject({ status: 'accepted', events: [{ actions: [] }] });
  });

  it('rejects an unsigned or re-addressed report notification', () => {
    expect(
      parseAdyenWebhook(
        credentials,
        request({
          ...report('settlement_detail_report_batch_12.csv'),
          pspReference: 'settlement_detail_report_batch_13.csv',
        }),
      ),
    ).toMatchObject({ status: 'rejected' });
    expect(
      parseAdyenWebhook(
        { ...credentials, merchant_account: 'OtherMerchant' },
        request(report('settlement_detail_report_batch_12.csv')),
      ),
    ).toMatchObject({ status: 'rejected' });
  });
});

describe('errors', () => {
  it('rejects a body that is not a notification, and a service without an HMAC key', () => {
    expect(parseAdyenWebhook(credentials, { ...request(), rawBody: Buffer.from('not json') })).toMatchObject({
      status: 'rejected',
    });
    expect(parseAdyenWebhook(credentials, request())).toMatchObject({ status: 'rejected' });
    expect(parseAdyenWebhook({ ...credentials, hmac_key: '' }, request(DOC_ITEM))).toMatchObject({
      status: 'rejected',
      reason: expect.stringContaining('hmac_key'),
    });
  });
});

describe('security', () => {
  it('rejects a changed amount, a wrong key, a missing signature, or one bad item in a batch', () => {
    expect(
      parseAdyenWebhook(credentials, request({ ...DOC_ITEM, amount: { value: 1, currency: 'EUR' } })),
    ).toMatchObject({ status: 'rejected' });
    expect(parseAdyenWebhook({ ...credentials, hmac_key: DOC_KEY.replace('4', '5') }, request(DOC_ITEM))).toMatchObject(
      { status: 'rejected' },
    );
    expect(parseAdyenWebhook(credentials, request({ ...DOC_ITEM, additionalData: {} }))).toMatchObject({
      status: 'rejected',
    });
    expect(
      parseAdyenWebhook(credentials, request(item('CAPTURE'), { ...item('REFUND'), success: 'false' })),
    ).toMatchObject({ status: 'rejected' });
  });

  it('names an item by its signed event code, PSP reference and success flag, whatever batch carries it or what its unsigned fields say', () => {
    const capture = item('CAPTURE');
    const alone = parseAdyenWebhook(credentials, request(capture));
    const inBatch = parseAdyenWebhook(
      credentials,
      request(item('REFUND', { pspReference: 'REF0000000000002' }), {
        ...capture,
        eventDate: '2030-01-01T00:00:00+01:00',
        reason: 'replayed',
      }),
    );
    const idsOf = (outcome: ReturnType<typeof parseAdyenWebhook>) =>
      outcome.status === 'accepted' ? outcome.events.map((e) => e.eventId) : [];
    expect(idsOf(inBatch)).toEqual(['adyen:REFUND:REF0000000000002:true', ...idsOf(alone)]);
    // A later outcome of the same event (success false, then true) is a new event.
    expect(idsOf(parseAdyenWebhook(credentials, request(item('CAPTURE', { success: 'false' }))))).toEqual([
      'adyen:CAPTURE:CAP0000000000001:false',
    ]);
  });

  it('rejects a genuine notification for another merchant account', () => {
    expect(parseAdyenWebhook({ ...credentials, merchant_account: 'OtherMerchant' }, request(DOC_ITEM))).toMatchObject({
      status: 'rejected',
      reason: expect.stringContaining('another'),
    });
  });
});
