import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRAINTREE_FAKE_KEYS, startBraintreeFake, type BraintreeFake } from '../../../test/fakes/braintree-fake.ts';
import type { AuthorizeRequest, SettlementLine } from '../connector.ts';
import { BraintreeCardConnector } from './braintree.connector.ts';
import type { BraintreeSettlementOptions } from './braintree.settlements.ts';

// Each test lives in its own month of 2026, so the fake's shared state never leaks between them.
let fake: BraintreeFake;
const credentials = {
  environment: 'sandbox',
  merchant_id: 'mid',
  ...BRAINTREE_FAKE_KEYS,
  merchant_account_ids: 'USD=default_usd,EUR=acme_eur,JPY=acme_jpy,KWD=acme_kwd',
};
const DAY = 86_400_000;
const LAG = 7 * DAY;

beforeAll(async () => {
  fake = await startBraintreeFake();
});
afterAll(async () => fake.close());

const connectorAt = (now: string, options: BraintreeSettlementOptions = {}) =>
  new BraintreeCardConnector(
    { baseUrls: { 'braintree-card': fake.baseUrl } },
    { pageSize: 2, lagMs: LAG, now: () => Date.parse(now), ...options },
  );

/** A card payment charged at once (SUBMITTED_FOR_SETTLEMENT at Braintree); its GraphQL id. */
async function charge(amount: number, currency = 'USD'): Promise<string> {
  const request: AuthorizeRequest = {
    idempotencyKey: randomUUID(),
    credentials,
    options: null,
    reference: 'ref',
    amount,
    currency,
    country: 'US',
    intent: 'capture',
    instrument: {
      kind: 'card',
      number: '4111111111111111',
      expirationDate: '03/30',
      securityCode: '123',
      scheme: 'visa',
    },
    merchantInitiated: false,
    isSubsequentPayment: false,
    paymentSource: 'ecommerce',
    threeDSecure: null,
    approvalBaseUrl: 'https://svc.example',
    merchantAccountId: 'm1',
    redirectUrl: null,
  };
  const outcome = await connectorAt('2026-01-01').authorize(request);
  expect(outcome.status).toBe('captured');
  return outcome.providerTransactionId!;
}

async function refund(transactionId: string, amount: number, currency = 'USD'): Promise<string> {
  const payment = { method: 'card', bin: '411111', last4: '1111', authorizedAmount: amount };
  const outcome = await connectorAt('2026-01-01').refund({
    credentials,
    options: null,
    payment,
    providerTransactionId: transactionId,
    reference: 'ref',
    currency,
    idempotencyKey: randomUUID(),
    amount,
    reason: null,
  });
  expect(outcome.status).toBe('succeeded');
  return outcome.providerRefundId!;
}

/** Reads pages until `done`, as the ingestion job does; `restart`: a new connector (a new process) for every page. */
async function drain(now: string, since: string, cursor: string | null = null, restart = false) {
  let connector = connectorAt(now);
  const lines: SettlementLine[] = [];
  let pages = 0;
  for (;;) {
    const page = await connector.settlements({ credentials, since: new Date(since), cursor, report: null });
    lines.push(...page.lines);
    cursor = page.cursor;
    pages += 1;
    if (page.done) return { lines, cursor, pages };
    if (restart) connector = connectorAt(now);
  }
}

const signed = (line: SettlementLine) =>
  line.kind === 'capture' || line.kind === 'chargeback-reversal' ? line.amount : -line.amount;

describe('happy', () => {
  it("pages through settled transactions, refunds and disputes; each line maps Braintree's figures, and the lines add up to each disbursement", async () => {
    const ids = [await charge(1000), await charge(2500 - 1), await charge(1500), await charge(700), await charge(4200)];
    fake.settlements.settle('2026-02-02T10:00:00.123456Z', ids);
    const refundId = await refund(ids[0]!, 300);
    fake.settlements.settle('2026-02-03T09:00:00Z', [refundId]);
    fake.settlements.disburse('2026-02-04', { ids });
    fake.settlements.disburse('2026-02-05', { ids: [refundId] });
    const dispute = fake.settlements.openDispute(ids[2]!, '2026-02-06T08:00:00Z', { disbursementDate: '2026-02-07' });
    fake.settlements.resolveDispute(dispute, 'DISPUTED', '2026-02-07T08:00:00Z');
    fake.settlements.resolveDispute(dispute, 'WON', '2026-02-09T08:00:00Z', { disbursementDate: '2026-02-10' });
    const before = fake.calls('SettledTransactions').length;

    const { lines, pages } = await drain('2026-02-25T00:00:00Z', '2026-02-01T00:00:00Z');

    expect(
      fake
        .calls('SettledTransactions')
        .slice(before)
        .map((v) => [v.first, v.after === null]),
    ).toEqual([
      [2, true],
      [2, false],
      [2, false],
    ]);
    expect(pages).toBe(5); // three pages of transactions, one of refunds, one of disputes
    expect(new Set(lines.map((l) => l.reportLineId)).size).toBe(lines.length);
    expect(
      lines
        .filter((l) => l.kind === 'capture')
        .map((l) => l.providerTransactionId)
        .sort(),
    ).toEqual([...ids].sort());
    expect(lines.find((l) => l.providerTransactionId === ids[0] && l.kind === 'capture')).toEqual({
      kind: 'capture',
      reportLineId: `settled:${ids[0]}`,
      reportId: 'disbursement:default_usd:2026-02-04',
      reportFileIds: [],
      providerTransactionId: ids[0],
      providerRefundId: null,
      merchantReference: null,
      currency: 'USD',
      amount: 1000,
      commission: 0,
      interchange: null,
      markup: null,
      schemeFee: null,
      exchangeRate: null,
      postedAt: new Date('2026-02-02T10:00:00.123Z'),
    });
    // The partial refund: its own id, on the refunded transaction, for what was refunded.
    expect(lines.filter((l) => l.kind === 'refund')).toEqual([
      expect.objectContaining({
        reportLineId: `refund:${refundId}`,
        providerRefundId: refundId,
        providerTransactionId: ids[0],
        amount: 300,
        reportId: 'disbursement:default_usd:2026-02-05',
      }),
    ]);
    expect(lines.filter((l) => l.kind.startsWith('chargeback'))).toEqual([
      expect.objectContaining({
        kind: 'chargeback',
        reportLineId: `dispute:${dispute}:opened`,
        providerTransactionId: ids[2],
        amount: 1500,
        reportId: 'disbursement:default_usd:2026-02-07',
        postedAt: new Date('2026-02-06T08:00:00Z'),
      }),
      expect.objectContaining({
        kind: 'chargeback-reversal',
        reportLineId: `dispute:${dispute}:won`,
        providerTransactionId: ids[2],
        amount: 1500,
        reportId: 'disbursement:default_usd:2026-02-10',
      }),
    ]);
    for (const total of fake.settlements.disbursed().filter((t) => t.reportId.includes(':2026-02-'))) {
      const sum = lines.filter((l) => l.reportId === total.reportId).reduce((acc, l) => acc + signed(l), 0);
      expect(sum, total.reportId).toBe(total.amount);
    }
  });

  it('resumes from the cursor after a restart at every page: no line read twice, none missed; a finished round reads nothing again', async () => {
    const ids = [];
    for (let i = 0; i < 5; i += 1) ids.push(await charge(100 + i));
    fake.settlements.settle('2026-03-02T10:00:00Z', ids);
    const refunds = [await refund(ids[0]!, 50), await refund(ids[1]!, 101), await refund(ids[2]!, 1)];
    fake.settlements.settle('2026-03-02T11:00:00Z', refunds);
    fake.settlements.disburse('2026-03-04', { ids: [...ids, ...refunds] });
    // The round below ends at 2026-03-13T00:00:00Z (its clock less the lag): one line settles at that
    // very microsecond (this round), one a microsecond later (the next round).
    const [edge, past] = [await charge(401), await charge(402)];
    fake.settlements.settle('2026-03-13T00:00:00.000000Z', [edge]);
    fake.settlements.settle('2026-03-13T00:00:00.000001Z', [past]);
    const whole = await drain('2026-03-20T00:00:00Z', '2026-03-01T00:00:00Z');
    const restarted = await drain('2026-03-20T00:00:00Z', '2026-03-01T00:00:00Z', null, true);
    expect(restarted.lines.map((l) => l.reportLineId)).toEqual(whole.lines.map((l) => l.reportLineId));
    expect(restarted.lines).toHaveLength(9);
    expect(restarted.lines.map((l) => l.providerTransactionId)).toContain(edge);
    // The same clock again: the window is empty. Later, a new line is read once, the old ones not again.
    expect((await drain('2026-03-20T00:00:00Z', '2026-03-01', restarted.cursor)).lines).toEqual([]);
    const late = await charge(999);
    fake.settlements.settle('2026-03-15T10:00:00Z', [late]);
    const next = await drain('2026-03-25T00:00:00Z', '2026-03-01', restarted.cursor);
    expect(next.lines.map((l) => l.reportLineId)).toEqual([`settled:${past}`, `settled:${late}`]);
  });

  it('reads a chargeback when the dispute opens and its reversal when it is won, in later rounds; a lost dispute and a retrieval move nothing more', async () => {
    const [won, lost, asked] = [await charge(5000 - 1), await charge(800), await charge(300)];
    fake.settlements.settle('2026-04-01T10:00:00Z', [won, lost, asked]);
    const first = await drain('2026-04-09T00:00:00Z', '2026-04-01T00:00:00Z');
    expect(first.lines.map((l) => l.kind)).toEqual(['capture', 'capture', 'capture']);
    const wonDispute = fake.settlements.openDispute(won!, '2026-04-03T12:00:00Z', { amount: '20.00' });
    const lostDispute = fake.settlements.openDispute(lost!, '2026-04-03T12:00:00Z');
    fake.settlements.openDispute(asked!, '2026-04-03T12:00:00Z', { type: 'RETRIEVAL' });
    const opened = await drain('2026-04-12T00:00:00Z', '2026-04-01', first.cursor);
    expect(opened.lines.map((l) => [l.kind, l.reportLineId, l.amount, l.reportId])).toEqual([
      ['chargeback', `dispute:${wonDispute}:opened`, 2000, `dispute:${wonDispute}`],
      ['chargeback', `dispute:${lostDispute}:opened`, 800, `dispute:${lostDispute}`],
    ]);
    fake.settlements.resolveDispute(wonDispute, 'WON', '2026-04-10T09:00:00Z', { amountWon: '15.00' });
    fake.settlements.resolveDispute(lostDispute, 'LOST', '2026-04-10T09:00:00Z');
    const resolved = await drain('2026-04-20T00:00:00Z', '2026-04-01', opened.cursor);
    expect(resolved.lines.map((l) => [l.kind, l.reportLineId, l.amount, l.providerTransactionId])).toEqual([
      ['chargeback-reversal', `dispute:${wonDispute}:won`, 1500, won],
    ]);
  });

  it("keeps each currency's exponent (JPY, KWD) and gives the exchange rate of a disbursement in another currency", async () => {
    const [yen, dinar, euro] = [await charge(1000, 'JPY'), await charge(1250, 'KWD'), await charge(1999, 'EUR')];
    fake.settlements.settle('2026-05-02T10:00:00Z', [yen, dinar, euro]);
    fake.settlements.disburse('2026-05-04', { ids: [yen, dinar] });
    fake.settlements.disburse('2026-05-04', { ids: [euro], currency: 'USD', exchangeRate: '1.0825' });
    const { lines } = await drain('2026-05-20T00:00:00Z', '2026-05-01T00:00:00Z');
    expect(lines.map((l) => [l.currency, l.amount, l.exchangeRate, l.reportId])).toEqual([
      ['JPY', 1000, null, 'disbursement:acme_jpy:2026-05-04'],
      ['KWD', 1250, null, 'disbursement:acme_kwd:2026-05-04'],
      ['EUR', 1999, 1.0825, 'disbursement:acme_eur:2026-05-04'],
    ]);
  });

  it('waits the lag for a disbursement; a line still not disbursed then carries its settlement batch', async () => {
    const [held, recent] = [await charge(1200), await charge(1300)];
    fake.settlements.settle('2026-06-02T10:00:00Z', [held]);
    fake.settlements.settle('2026-06-12T10:00:00Z', [recent]);
    fake.settlements.disburse('2026-06-04', { ids: [held], fundsHeld: true });
    const first = await drain('2026-06-15T00:00:00Z', '2026-06-01T00:00:00Z');
    expect(first.lines.map((l) => [l.providerTransactionId, l.reportId])).toEqual([
      [held, 'settlement-batch:2026-06-02_default_usd'],
    ]);
    fake.settlements.disburse('2026-06-16', { ids: [recent] });
    const second = await drain('2026-06-22T00:00:00Z', '2026-06-01', first.cursor);
    expect(second.lines.map((l) => [l.providerTransactionId, l.reportId])).toEqual([
      [recent, 'disbursement:default_usd:2026-06-16'],
    ]);
  });
});

describe('errors', () => {
  it("refuses a cursor it did not write, and reports Braintree's failures as connector errors (the job retries)", async () => {
    const connector = connectorAt('2026-07-20T00:00:00Z');
    const request = { credentials, since: new Date('2026-07-01'), report: null };
    await expect(connector.settlements({ ...request, cursor: 'page-2' })).rejects.toMatchObject({
      name: 'ConnectorError',
      kind: 'invalid_request',
    });
    fake.failNext(500);
    await expect(connector.settlements({ ...request, cursor: null })).rejects.toMatchObject({
      name: 'ConnectorError',
      kind: 'timeout',
    });
    fake.failNext(401);
    await expect(connector.settlements({ ...request, cursor: null })).rejects.toMatchObject({
      name: 'ConnectorError',
      kind: 'invalid_request',
    });
  });

  it('reads nothing before the lag has passed since `since`', async () => {
    const page = await connectorAt('2026-08-05T00:00:00Z').settlements({
      credentials,
      since: new Date('2026-08-01'),
      cursor: null,
      report: null,
    });
    expect(page).toMatchObject({ lines: [], done: true });
  });
});
