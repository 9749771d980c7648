import { afterAll, beforeAll } from 'vitest';
import { DlocalPixConnector } from '../../src/connectors/dlocal/dlocal.connector.ts';
import {
  DLOCAL_FAKE_LOGIN,
  DLOCAL_FAKE_SECRET,
  DLOCAL_FAKE_TRANS_KEY,
  startDlocalFake,
  type DlocalFake,
} from '../fakes/dlocal-fake.ts';
import { runConnectorContract, type ContractHarness } from './contract.ts';

/** dlocal-pix against the local dLocal fake (amount-driven outcomes, test/fakes/dlocal-fake.ts). */
let fake: DlocalFake;
let connector: DlocalPixConnector;

beforeAll(async () => {
  fake = await startDlocalFake();
  connector = new DlocalPixConnector({ baseUrls: { 'dlocal-pix': fake.url } });
});
afterAll(async () => fake.close());

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({
    x_login: DLOCAL_FAKE_LOGIN,
    x_trans_key: DLOCAL_FAKE_TRANS_KEY,
    secret_key: DLOCAL_FAKE_SECRET,
  }),
  currency: 'BRL',
  country: 'BR',
  buyer: {
    name: 'Thiago Gabriel',
    emailAddress: 'thiago@example.com',
    taxId: { value: '530.333.155-50', kind: 'br.cpf' },
  },
  sale: true,
  // dLocal's chargeback notifications are not mapped (docs/connectors-dlocal.md).
  webhookKinds: ['capture_succeeded', 'refund_succeeded'],
  approve: { number: '', amount: 1000 },
  decline: { number: '', amount: 2005, errorCode: 'do_not_honor' },
  redirect: {
    method: 'pix',
    approve: (pending) => {
      fake.pay(pending.providerTransactionId!);
      return {};
    },
    madeFor: (key) => fake.paymentOfOrder(key)?.id ?? null,
  },
  unanswered: () => ({ card: { number: '', amount: 2409 }, timeoutMs: 5000 }),
  webhook: (kind, payment, amount, tamper) => {
    if (kind === 'capture_succeeded') return fake.pay(payment, { tamper });
    const refund = {
      id: 'REF-contract',
      payment_id: payment,
      status: 'SUCCESS',
      amount: amount / 100,
      currency: 'BRL',
    };
    return fake.notification(refund, 'https://svc.example/webhooks', { tamper });
  },
  fault: (status) => fake.failNext(status),
});

runConnectorContract('dlocal-pix', harness);
