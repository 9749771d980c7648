import { describe, expect, it } from 'vitest';
import { auditQuery, seenTypes } from '../../console/src/pages/audit-filters.ts';
import { metricSummary } from '../../console/src/pages/monitoring-metrics.ts';
import { payoutBody, type PayoutDraft } from '../../console/src/pages/payout-body.ts';
import { accountChanges, accountDraft, EMPTY_THREE_DS, threeDsBody } from '../../console/src/pages/settings-forms.ts';
import { attemptsByService, settlementLines } from '../../console/src/pages/transaction-history.ts';
import { bytes } from '../../console/src/ui/format.ts';

/**
 * The pure logic of the console's pages (console/src/pages): a transaction's attempts and
 * settlement lines, the payout, merchant account, 3-D Secure and audit log forms, a monitoring
 * metric's summary, file sizes. The shared helpers are in console-logic.test.ts.
 */

describe('happy', () => {
  it("groups a transaction's connector calls by payment service, a later answer replacing the unknown one", () => {
    const at = (n: number) => `2026-01-01T00:00:0${n}.000Z`;
    const events = [
      {
        id: 'e4',
        name: 'transaction-sync-event',
        created_at: at(4),
        context: {
          attempt_id: 'r1',
          operation: 'refund',
          amount: 300,
          outcome: 'succeeded',
          error_code: null,
          duration_ms: 12,
        },
      },
      {
        id: 'e1',
        name: 'payment-connector-response-transaction-authorization-failed',
        created_at: at(1),
        context: {
          attempt_id: 'a1',
          operation: 'authorize',
          amount: 1000,
          payment_service_id: 'ps-1',
          outcome: 'unknown',
          error_code: 'timeout',
          duration_ms: 5000,
        },
      },
      {
        id: 'e0',
        name: 'transaction-updated-status',
        created_at: at(0),
        context: { from: 'processing', to: 'processing' },
      },
      {
        id: 'e2',
        name: 'payment-connector-response-transaction-authorization-succeeded',
        created_at: at(2),
        context: {
          attempt_id: 'a2',
          operation: 'authorize',
          amount: 1000,
          payment_service_id: 'ps-2',
          outcome: 'succeeded',
          error_code: null,
          duration_ms: 40,
        },
      },
      {
        id: 'e3',
        name: 'payment-connector-response-transaction-authorization-declined',
        created_at: at(3),
        context: {
          attempt_id: 'a1',
          operation: 'authorize',
          payment_service_id: 'ps-1',
          outcome: 'declined',
          error_code: 'do_not_honor',
          duration_ms: null,
        },
      },
    ];
    expect(attemptsByService(events, 'ps-2')).toEqual([
      {
        paymentServiceId: 'ps-1',
        attempts: [
          {
            attemptId: 'a1',
            operation: 'authorize',
            amount: 1000,
            outcome: 'declined',
            errorCode: 'do_not_honor',
            durationMs: null,
            at: at(1),
          },
        ],
      },
      {
        paymentServiceId: 'ps-2',
        attempts: [
          {
            attemptId: 'a2',
            operation: 'authorize',
            amount: 1000,
            outcome: 'succeeded',
            errorCode: null,
            durationMs: 40,
            at: at(2),
          },
          {
            attemptId: 'r1',
            operation: 'refund',
            amount: 300,
            outcome: 'succeeded',
            errorCode: null,
            durationMs: 12,
            at: at(4),
          },
        ],
      },
    ]);
    expect(attemptsByService([events[2]!], null)).toEqual([]);
  });

  it("marks which of a transaction's settlement lines settle a refund, oldest first", () => {
    const line = (id: string, posted_at: string, amount: number) => ({
      id,
      posted_at,
      amount,
      currency: 'EUR',
      commission: 0,
      interchange: null,
      scheme_fee: null,
      payment_service_report_id: 'report-1',
    });
    const lines = settlementLines(
      [line('s2', '2026-01-02T00:00:00Z', -1200), line('s1', '2026-01-01T00:00:00Z', 5000)],
      [{ id: 's2', refund_id: 'refund-1' }],
    );
    expect(lines.map((l) => [l.id, l.amount, l.refundId])).toEqual([
      ['s1', 5000, null],
      ['s2', -1200, 'refund-1'],
    ]);
  });

  it("writes the payout form as POST /payouts' body: a card number (spaces dropped) or a stored card", () => {
    const draft: PayoutDraft = {
      amount: '25.5',
      currency: 'usd',
      payment_service_id: 'ps-1',
      destination: 'card',
      number: '4111 1111 1111 1111',
      expiration_date: '12/40',
      stored_card_id: '',
      external_identifier: ' po-7 ',
      category: '',
    };
    expect(payoutBody(draft)).toEqual({
      body: {
        amount: 2550,
        currency: 'USD',
        payment_service_id: 'ps-1',
        payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/40' },
        external_identifier: 'po-7',
      },
    });
    expect(
      payoutBody({
        ...draft,
        destination: 'id',
        stored_card_id: 'pm-9',
        external_identifier: '',
        category: 'online_gambling',
      }),
    ).toEqual({
      body: {
        amount: 2550,
        currency: 'USD',
        payment_service_id: 'ps-1',
        payment_method: { method: 'id', id: 'pm-9' },
        category: 'online_gambling',
      },
    });
  });

  it("sends only a merchant account's changed fields, emptied ones as null", () => {
    const before = accountDraft({
      display_name: 'Default',
      over_capture_amount: null,
      over_capture_percentage: 10,
      account_updater_enabled: false,
      async_network_tokens_enabled: true,
      visa_network_tokens_requestor_id: 'req-1',
    });
    expect(before).toMatchObject({ display_name: 'Default', over_capture_amount: '', over_capture_percentage: '10' });
    expect(accountChanges(before, { ...before })).toEqual({ body: {} });
    expect(
      accountChanges(before, {
        ...before,
        display_name: ' Main shop ',
        over_capture_amount: '500',
        over_capture_percentage: '',
        visa_network_tokens_requestor_id: '',
        account_updater_enabled: true,
      }),
    ).toEqual({
      body: {
        display_name: 'Main shop',
        visa_network_tokens_requestor_id: null,
        over_capture_amount: 500,
        over_capture_percentage: null,
        account_updater_enabled: true,
      },
    });
  });

  it('writes a 3-D Secure configuration: every field to create it, the changed ones to edit it', () => {
    const draft = {
      ...EMPTY_THREE_DS,
      scheme: ' Visa',
      currency: 'eur',
      merchant_acquirer_bin: '400000',
      merchant_acquirer_id: 'MID-1',
      merchant_name: 'Shop',
      merchant_country_code: '276',
      merchant_category_code: '5999',
      merchant_url: 'https://shop.example',
    };
    expect(threeDsBody(draft)).toEqual({
      scheme: 'visa',
      currency: 'EUR',
      merchant_acquirer_bin: '400000',
      merchant_acquirer_id: 'MID-1',
      merchant_name: 'Shop',
      merchant_country_code: '276',
      merchant_category_code: '5999',
      merchant_url: 'https://shop.example',
      metadata: {},
    });
    const stored = { ...draft, scheme: 'visa', currency: 'EUR' };
    expect(threeDsBody({ ...stored, merchant_name: 'Shop two', currency: '' }, stored)).toEqual({
      currency: null,
      merchant_name: 'Shop two',
    });
    expect(threeDsBody({ ...draft, currency: '' }).currency).toBeNull();
  });

  it("writes a report file's size for people", () => {
    expect([bytes(null), bytes(812), bytes(4210), bytes(1_500_000)]).toEqual(['—', '812 B', '4.2 kB', '1.5 MB']);
  });

  it("sums up a monitoring metric's last hour: latest rate, unhealthy samples, its policies in words", () => {
    const sample = (value: number | null, healthy: boolean | null) => ({
      timestamp: '2026-01-01T00:00:00Z',
      value,
      healthy,
      incident_related: false,
    });
    expect(
      metricSummary({
        alerting_policy: { params: { alert_gt: null, alert_lt: 0.8 } },
        incident_policy: { params: { create_after_n: 3, close_after_n: 2 } },
        samples_view: [sample(0.7, false), sample(0.9, true), sample(null, null)],
      }),
    ).toEqual({
      latest: 0.9,
      healthy: true,
      unhealthy: 1,
      samples: 3,
      thresholds: 'Alerts below 80.0 %',
      incidents: 'Opens after 3 unhealthy samples, closes after 2 healthy ones',
    });
    expect(metricSummary({ alerting_policy: null, incident_policy: null, samples_view: [] })).toEqual({
      latest: null,
      healthy: null,
      unhealthy: 0,
      samples: 0,
      thresholds: 'No alerting threshold',
      incidents: 'Opens no incident',
    });
  });

  it("writes the audit log's filters as GET /audit-logs takes them, and suggests the resource types seen", () => {
    const user = '01234567-89ab-4cde-8f01-23456789abcd';
    expect(auditQuery({ action: 'deleted', resource_type: ' Payment-Service ', user_id: ` ${user}` })).toEqual({
      query: { action: 'deleted', resource_type: 'payment-service', user_id: user },
    });
    expect(seenTypes(['report'], [{ resource: { type: 'transaction' } }, { resource: { type: 'report' } }])).toEqual([
      'report',
      'transaction',
    ]);
  });
});

describe('errors', () => {
  it('says what to correct in the payout form before sending it', () => {
    const draft: PayoutDraft = {
      amount: '10',
      currency: 'EUR',
      payment_service_id: 'ps-1',
      destination: 'card',
      number: '4111111111111111',
      expiration_date: '12/40',
      stored_card_id: '',
      external_identifier: '',
      category: '',
    };
    expect(payoutBody({ ...draft, amount: '1.234' })).toEqual({ error: 'Enter an amount such as 12.50' });
    expect(payoutBody({ ...draft, currency: 'EU' })).toEqual({ error: 'Enter a currency code such as EUR' });
    expect(payoutBody({ ...draft, payment_service_id: '' })).toEqual({
      error: 'Choose the payment service that makes the payout',
    });
    expect(payoutBody({ ...draft, number: '4111' })).toEqual({ error: 'Enter the card number' });
    expect(payoutBody({ ...draft, expiration_date: '2040-12' })).toEqual({ error: 'Enter the expiry as MM/YY' });
    expect(payoutBody({ ...draft, destination: 'id' })).toEqual({ error: 'Enter the stored card id' });
  });

  it('refuses a merchant account without a name, or an over-capture that is not a whole number', () => {
    const before = accountDraft({ display_name: 'Default' });
    expect(accountChanges(before, { ...before, display_name: '  ' })).toEqual({ error: 'The account needs a name' });
    expect(accountChanges(before, { ...before, over_capture_percentage: '12.5' })).toEqual({
      error: 'Over-capture percentage: a whole number, or empty for none',
    });
  });

  it('refuses an audit log user that is not an id, or an action the API does not know', () => {
    expect(auditQuery({ action: '', resource_type: '', user_id: 'admin@example.com' })).toEqual({
      error: "A user is given by its id (a UUID): use a row's “Only this user”",
    });
    expect(auditQuery({ action: 'approved', resource_type: '', user_id: '' })).toEqual({
      error: 'Choose an action from the list',
    });
  });
});
