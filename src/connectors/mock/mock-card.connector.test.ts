import { describe, expect, it } from 'vitest';
import { ConnectorError, type PayoutInstrument, type PayoutOutcome, type PayoutRequest } from '../connector.ts';
import { MockCardConnector } from './mock-card.connector.ts';
import { PAYOUT_AMOUNT_SCENARIOS, PAYOUT_CARDS, type MockPayoutScenario } from './mock-card-payouts.scenarios.ts';
import { MockRedirectConnector } from './mock-redirect.connector.ts';

const connector = new MockCardConnector();
const card = (number = '4111111111111111'): PayoutInstrument => ({
  kind: 'card',
  number,
  expirationDate: '12/39',
  scheme: 'visa',
});

const payoutRequest = (overrides: Partial<PayoutRequest> = {}): PayoutRequest => ({
  idempotencyKey: 'payout-attempt-1',
  credentials: { merchant_id: 'm-1' },
  options: null,
  reference: 'po-1',
  amount: 1000,
  currency: 'USD',
  category: 'online_gambling',
  instrument: card(),
  merchant: null,
  ...overrides,
});

/** What the connector answers (or throws) for a documented scenario. */
async function expectOutcome(request: PayoutRequest, scenario: MockPayoutScenario) {
  const call = connector.payout(request);
  switch (scenario.kind) {
    case 'timeout':
    case 'unavailable':
      await expect(call).rejects.toEqual(expect.objectContaining({ name: 'ConnectorError', kind: scenario.kind }));
      await expect(connector.payout(request)).rejects.toBeInstanceOf(ConnectorError);
      return;
    case 'decline':
    case 'fail':
      expect(await call).toEqual<PayoutOutcome>({
        status: scenario.kind === 'decline' ? 'declined' : 'failed',
        errorCode: scenario.errorCode,
        rawResponseCode: scenario.rawCode,
        rawResponseDescription: scenario.rawDescription,
        providerPayoutId: expect.stringMatching(/^mock_pay_[0-9a-f]{24}$/),
      });
      return;
    default:
      expect(await call).toEqual<PayoutOutcome>({
        status: scenario.kind === 'pending' ? 'pending' : 'succeeded',
        errorCode: null,
        rawResponseCode: null,
        rawResponseDescription: null,
        providerPayoutId: expect.stringMatching(/^mock_pay_[0-9a-f]{24}$/),
      });
  }
}

describe('happy', () => {
  it('publishes the payout capability truthfully', () => {
    expect(connector.definition.capabilities.payout).toBe(true);
    expect(typeof connector.payout).toBe('function');
    const redirect = new MockRedirectConnector();
    expect(redirect.definition.capabilities.payout).toBe(false);
    expect('payout' in redirect).toBe(false);
  });

  it('pays out to any other card or stored card token, with the merchant and category optional', async () => {
    expect(await connector.payout(payoutRequest())).toMatchObject({ status: 'succeeded', errorCode: null });
    expect(
      await connector.payout(
        payoutRequest({ instrument: { kind: 'payment-service-token', token: 'mock_tok_abc' }, category: null }),
      ),
    ).toMatchObject({ status: 'succeeded' });
    const merchant = {
      name: 'Casino',
      identificationNumber: '123',
      phoneNumber: '+15555550100',
      url: 'https://casino.example',
      statementDescriptor: 'CASINO',
      merchantCategoryCode: '7995',
      address: null,
    };
    expect(await connector.payout(payoutRequest({ merchant }))).toMatchObject({ status: 'succeeded' });
  });

  it('answers each documented test card as the table says (payment test cards have no effect)', async () => {
    for (const [number, entry] of PAYOUT_CARDS)
      await expectOutcome(payoutRequest({ instrument: card(number) }), entry.scenario);
    expect(await connector.payout(payoutRequest({ instrument: card('4000000000000002') }))).toMatchObject({
      status: 'succeeded',
    });
  });

  it('answers each documented amount as the table says, with any card or a stored card token, amounts first', async () => {
    for (const [amount, entry] of PAYOUT_AMOUNT_SCENARIOS) {
      await expectOutcome(payoutRequest({ amount }), entry.scenario);
      await expectOutcome(
        payoutRequest({ amount, instrument: { kind: 'payment-service-token', token: 'mock_tok_abc' } }),
        entry.scenario,
      );
      await expectOutcome(payoutRequest({ amount, instrument: card('4000000000003006') }), entry.scenario);
    }
  });

  it('uses the idempotency key as the provider key: a retry finds the same payout, another key another one', async () => {
    const first = await connector.payout(payoutRequest());
    expect(await connector.payout(payoutRequest())).toEqual(first);
    expect(await connector.payout(payoutRequest({ credentials: { merchant_id: 'other' }, reference: 'po-2' }))).toEqual(
      first,
    );
    const other = await connector.payout(payoutRequest({ idempotencyKey: 'payout-attempt-2' }));
    expect(other.providerPayoutId).not.toBe(first.providerPayoutId);
    const declined = payoutRequest({ amount: 3005 });
    expect((await connector.payout(declined)).providerPayoutId).toBe(
      (await connector.payout(declined)).providerPayoutId,
    );
  });

  it('answers payout status queries deterministically: pending and timed-out payouts were sent, an unreachable one never arrived', async () => {
    const sync = (amount: number, number = '4111111111111111', providerPayoutId: string | null = null) =>
      connector.syncPayout({
        idempotencyKey: 'payout-attempt-1',
        credentials: { merchant_id: 'm-1' },
        options: null,
        providerPayoutId,
        reference: 'po-1',
        amount,
        currency: 'USD',
        card: { bin: number.slice(0, 8), last4: number.slice(-4) },
      });
    const paid = await connector.payout(payoutRequest());
    expect(await sync(1000)).toEqual({
      status: 'succeeded',
      providerPayoutId: paid.providerPayoutId,
      errorCode: null,
      rawResponseCode: null,
      rawResponseDescription: null,
    });
    expect(await sync(3077, undefined, 'mock_pay_known')).toMatchObject({
      status: 'succeeded',
      providerPayoutId: 'mock_pay_known',
    });
    expect(await sync(1000, '4000000000003006')).toMatchObject({ status: 'succeeded' });
    expect(await sync(3408)).toMatchObject({ status: 'succeeded', providerPayoutId: paid.providerPayoutId });
    expect(await sync(3094)).toMatchObject({ status: 'not_found', providerPayoutId: null });
    expect(await sync(3005)).toMatchObject({ status: 'declined', errorCode: 'do_not_honor', rawResponseCode: '05' });
    expect(await sync(3096)).toMatchObject({ status: 'failed', errorCode: 'service_error' });
    expect(await sync(1000, '4000000000000572')).toMatchObject({
      status: 'declined',
      errorCode: 'transaction_not_permitted',
    });
  });
});

describe('status queries (issue 48)', () => {
  const base = { credentials: { merchant_id: 'm-1' }, options: null, reference: 'r-1', currency: 'USD' };
  const payment = { method: 'card', bin: '411111', last4: '1111', authorizedAmount: 1000 };
  const sync = (
    mock: MockCardConnector,
    operation: 'authorize' | 'capture' | 'void' | 'refund' | 'increment',
    idempotencyKey: string,
  ) =>
    mock.sync({
      ...base,
      idempotencyKey,
      operation,
      providerTransactionId: 'mock_txn_1',
      amount: 1000,
      payment,
      intent: 'authorize',
      buyerApproved: null,
    });

  it('answers not_found for a call it never received (a request lost before the call), and the call once received', async () => {
    const mock = new MockCardConnector();
    for (const operation of ['authorize', 'capture', 'void', 'refund', 'increment'] as const) {
      expect((await sync(mock, operation, `never-${operation}`)).status, operation).toBe('not_found');
    }
    expect(
      await mock.syncPayout({
        ...base,
        idempotencyKey: 'never-payout',
        providerPayoutId: null,
        amount: 1000,
        card: { bin: '41111111', last4: '1111' },
      }),
    ).toMatchObject({ status: 'not_found', providerPayoutId: null });
    const card = {
      kind: 'card' as const,
      number: '4111111111111111',
      expirationDate: '12/40',
      securityCode: '123',
      scheme: 'visa',
    };
    await mock.authorize({
      ...base,
      idempotencyKey: 'a-1',
      amount: 1000,
      country: 'US',
      intent: 'authorize',
      instrument: card,
      merchantInitiated: false,
      isSubsequentPayment: false,
      paymentSource: 'ecommerce',
      previousSchemeTransactionId: null,
      threeDSecure: null,
      approvalBaseUrl: 'https://svc.test',
      merchantAccountId: 'm',
      redirectUrl: null,
    } as never);
    await mock.capture({
      ...base,
      idempotencyKey: 'c-1',
      amount: 1000,
      payment,
      providerTransactionId: 'mock_txn_1',
    } as never);
    await mock.void({ ...base, idempotencyKey: 'v-1', payment, providerTransactionId: 'mock_txn_1' } as never);
    await mock.refund({
      ...base,
      idempotencyKey: 'f-1',
      amount: 100,
      payment,
      providerTransactionId: 'mock_txn_1',
      reason: null,
    } as never);
    expect((await sync(mock, 'authorize', 'a-1')).status).toBe('authorized');
    expect((await sync(mock, 'capture', 'c-1')).status).toBe('captured');
    expect((await sync(mock, 'void', 'v-1')).status).toBe('voided');
    expect((await sync(mock, 'refund', 'f-1')).status).toBe('refunded');
    // A key is one call: the capture's key says nothing of a refund.
    expect((await sync(mock, 'refund', 'c-1')).status).toBe('not_found');
    // Another simulator (another ledger) never received them.
    expect((await sync(new MockCardConnector(), 'capture', 'c-1')).status).toBe('not_found');
  });

  it('receives nothing when the processor is unreachable, and a timed-out call was received', async () => {
    const mock = new MockCardConnector();
    const card = (number: string) => ({
      kind: 'card' as const,
      number,
      expirationDate: '12/40',
      securityCode: '123',
      scheme: 'visa',
    });
    const authorize = (key: string, number: string) =>
      mock.authorize({
        ...base,
        idempotencyKey: key,
        amount: 1000,
        country: 'US',
        intent: 'authorize',
        instrument: card(number),
        merchantInitiated: false,
        isSubsequentPayment: false,
        paymentSource: 'ecommerce',
        previousSchemeTransactionId: null,
        threeDSecure: null,
        approvalBaseUrl: 'https://svc.test',
        merchantAccountId: 'm',
        redirectUrl: null,
      } as never);
    await expect(authorize('t-1', '4000000000000408')).rejects.toMatchObject({ kind: 'timeout' });
    expect((await sync(mock, 'authorize', 't-1')).status).toBe('authorized');
    await expect(authorize('u-1', '4000000000000994')).rejects.toMatchObject({ kind: 'unavailable' });
    expect((await sync(mock, 'authorize', 'u-1')).status).toBe('not_found');
  });
});

describe('errors', () => {
  it('throws ConnectorError for technical failures only, never for a decline', async () => {
    await expect(connector.payout(payoutRequest({ amount: 3408 }))).rejects.toMatchObject({ kind: 'timeout' });
    await expect(connector.payout(payoutRequest({ amount: 3094 }))).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(connector.payout(payoutRequest({ amount: 3005 }))).resolves.toMatchObject({ status: 'declined' });
  });
});

describe('security', () => {
  it('never echoes the card number in an outcome or an error', async () => {
    const number = '4000000000000572';
    expect(JSON.stringify(await connector.payout(payoutRequest({ instrument: card(number) })))).not.toContain(number);
    const error: unknown = await connector
      .payout(payoutRequest({ amount: 3408, instrument: card(number) }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    const { message, raw } = error as ConnectorError;
    expect(`${message} ${JSON.stringify(raw)}`).not.toContain(number);
  });
});
