import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc16 } from '../../src/connectors/mock/mock-pix-code.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import {
  eventsOf,
  onApprovalPage,
  sandboxMerchant,
  transactionWhen,
  type SandboxMerchant,
} from '../helpers/sandbox-methods.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/**
 * The sandbox's PIX (`mock-pix`, docs/sandbox.md "Asynchronous methods") through HTTP: a BRL sale
 * that waits with its copy-and-paste code, as dlocal-pix's does; the simulated provider reports it
 * paid, or expired (2054), through the inbound webhook path (SANDBOX_ASYNC_DELAY_SECONDS 0 here);
 * the sandbox bank app page pays it at once; refunds are processing until a status query.
 */
let t: TestApp;
let receiver: Receiver;
let merchant: SandboxMerchant;
beforeAll(async () => {
  t = await buildTestApp({ SANDBOX_ASYNC_DELAY_SECONDS: '0' });
  receiver = await startReceiver();
  merchant = await sandboxMerchant(t, receiver, 'mock-pix', ['BRL'], ['BR']);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const buyer = {
  billing_details: {
    first_name: 'Thiago',
    last_name: 'Gabriel',
    email_address: 'thiago@example.com',
    tax_id: { value: '530.333.155-50', kind: 'br.cpf' },
  },
};

async function create(amount: number, body: Record<string, unknown> = {}) {
  const res = await merchant.call('POST', '/transactions', {
    amount,
    currency: 'BRL',
    country: 'BR',
    intent: 'capture',
    payment_method: { method: 'pix', country: 'BR', currency: 'BRL', redirect_url: 'https://shop.example/done' },
    buyer,
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('happy', () => {
  it('is offered by payment options in BRL in Brazil only', async () => {
    const methods = async (currency: string, country: string) =>
      (await merchant.call('POST', '/payment-options', { amount: 1000, currency, country }))
        .json()
        .items.map((o: { method: string }) => o.method);
    expect(await methods('BRL', 'BR')).toContain('pix');
    expect(await methods('USD', 'US')).not.toContain('pix');
  });

  it('waits with a valid PIX code, is paid by the simulated provider, then refunded in part', async () => {
    const txn = await create(1000);
    expect(txn).toMatchObject({ status: 'buyer_approval_pending', method: 'pix' });
    const code = txn.additional_identifiers.pix_qr_code as string;
    expect(code.startsWith('000201')).toBe(true);
    expect(code).toContain('br.gov.bcb.pix');
    expect(code).toContain('540510.00');
    expect(code.slice(-4)).toBe(crc16(code.slice(0, -4)));
    const page = await t.app.inject({ method: 'GET', url: new URL(txn.payment_method.approval_url).pathname });
    expect(page.body).toContain(code);

    const paid = await transactionWhen(t, merchant, txn.id, (x) => x.status !== 'buyer_approval_pending');
    expect(paid).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    expect(await eventsOf(merchant, txn.id)).toContainEqual({
      name: 'payment-connector-transaction-webhook-processed',
      kind: 'capture_succeeded',
    });
    await transactionWhen(t, merchant, txn.id, () =>
      merchant.webhooks().some((w) => w.id === txn.id && w.status === 'capture_succeeded'),
    );
    expect(merchant.webhooks().filter((w) => w.id === txn.id)).toEqual([
      { kind: 'transaction.created', id: txn.id, status: 'buyer_approval_pending' },
      { kind: 'transaction.captured', id: txn.id, status: 'capture_succeeded' },
    ]);

    const refund = await merchant.call('POST', `/transactions/${txn.id}/refunds`, { amount: 300 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'processing', amount: 300 });
    expect((await merchant.call('POST', `/transactions/${txn.id}/sync`)).statusCode).toBe(200);
    const refunds = (await merchant.call('GET', `/transactions/${txn.id}/refunds`)).json();
    expect(refunds.items).toEqual([expect.objectContaining({ status: 'succeeded', amount: 300 })]);
  });

  it('is paid at once with the sandbox bank app page', async () => {
    const txn = await create(1200);
    expect((await onApprovalPage(t, txn, 'approve')).statusCode).toBe(200);
    expect((await merchant.call('GET', `/transactions/${txn.id}`)).json()).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 1200,
    });
    // The simulated provider's later report finds it paid already: recorded, nothing changes twice.
    await transactionWhen(t, merchant, txn.id, async () =>
      (await eventsOf(merchant, txn.id)).some((e) => e.name === 'payment-connector-transaction-webhook-processed'),
    );
    expect((await merchant.call('GET', `/transactions/${txn.id}`)).json()).toMatchObject({ captured_amount: 1200 });
  });
});

describe('errors', () => {
  it('2054: the code expires unpaid (authorization_declined, raw EXPIRED)', async () => {
    const txn = await create(2054);
    const expired = await transactionWhen(t, merchant, txn.id, (x) => x.status !== 'buyer_approval_pending');
    expect(expired).toMatchObject({ status: 'authorization_declined', raw_response_code: 'EXPIRED' });
  });

  it('2005: rejected by the simulated provider once the bank answers; without a CPF nothing is made', async () => {
    const rejected = await create(2005);
    expect(rejected).toMatchObject({ status: 'buyer_approval_pending' });
    const done = await transactionWhen(t, merchant, rejected.id, (x) => x.status !== 'buyer_approval_pending');
    expect(done).toMatchObject({ status: 'authorization_declined', raw_response_code: '05' });
    expect(
      await create(1000, { buyer: { billing_details: { first_name: 'Ana', email_address: 'a@example.com' } } }),
    ).toMatchObject({
      status: 'authorization_failed',
      raw_response_code: 'request_not_sent',
      raw_response_description: expect.stringContaining('CPF or CNPJ'),
    });
  });
});
