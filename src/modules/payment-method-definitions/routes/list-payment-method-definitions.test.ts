import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { inlineSchemaRefs } from '../../../../test/helpers/openapi-document.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { mintToken } from '../../../cli/token.ts';
import { TransactionPaymentMethodBody } from '../../transactions/create-transaction.schema.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const list = () => ({ method: 'GET' as const, url: '/payment-method-definitions' });

describe('happy', () => {
  it('lists every recognized method by id, with its names, kind and an absolute icon URL, in a plain items list', async () => {
    const res = await t.request(list());
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['items']);
    expect(body.items.map((d: { id: string }) => d.id)).toEqual([
      'ach',
      'applepay',
      'bacs',
      'becs',
      'card',
      'click-to-pay',
      'custom_redirect',
      'gift-card',
      'gocardless',
      'googlepay',
      'googlepay_pan_only',
      'ideal',
      'klarna',
      'netbanking',
      'network-token',
      'paybybank',
      'paypal',
      'paze',
      'pix',
      'sepa',
    ]);
    expect(body.items).toContainEqual({
      id: 'card',
      icon_url: `${t.config.publicUrl}/assets/payment-method-definitions/card.svg`,
      display_name: 'Card',
      long_display_name: 'Credit or debit card',
      method: 'card_payment',
    });
    expect(body.items).toContainEqual({
      id: 'ach',
      icon_url: `${t.config.publicUrl}/assets/payment-method-definitions/ach.svg`,
      display_name: 'ACH',
      long_display_name: 'ACH bank debit',
      method: 'direct_debit',
    });
    expect(body.items).toContainEqual({
      id: 'paybybank',
      icon_url: `${t.config.publicUrl}/assets/payment-method-definitions/paybybank.svg`,
      display_name: 'Pay by bank',
      long_display_name: 'Pay by bank (open banking)',
      method: 'bank_redirect',
    });
  });

  it("holds every method a payment can be made with here: each form of POST /transactions, gift cards, and each connector's method", async () => {
    const ids = new Set((await t.request(list())).json().items.map((d: { id: string }) => d.id));
    const forms = (TransactionPaymentMethodBody as unknown as { properties: { method: { enum: string[] } } }).properties
      .method.enum;
    const connectors = [
      'mock-card',
      'mock-paybybank',
      'mock-paypal',
      'stripe-card',
      'adyen-card',
      'braintree-card',
      'paypal-paypal',
      'checkout-card',
      'dlocal-pix',
      'gocardless-gocardless',
      'adyen-ideal',
      'adyen-sepa',
      'adyen-klarna',
      'mock-ideal',
      'mock-klarna',
      'mock-gocardless',
      'mock-sepa',
      'mock-pix',
    ].map((id) => t.deps.connectors.find(id)!.definition.method);
    const recognized = [...forms.filter((m) => m !== 'id' && m !== 'checkout-session'), ...connectors, 'gift-card'];
    expect(recognized.filter((m) => !ids.has(m))).toEqual([]);
    expect([...ids].filter((id) => !recognized.includes(id as string))).toEqual([]);
  });

  it('gives icon URLs that load without a token', async () => {
    const { items } = (await t.request(list())).json();
    for (const item of items as Array<{ icon_url: string; display_name: string }>) {
      const res = await t.app.inject({ method: 'GET', url: new URL(item.icon_url).pathname });
      expect(res.statusCode, item.icon_url).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(res.body).toContain(`<title>${item.display_name}</title>`);
    }
  });

  it('answers the same for every merchant account (a catalogue)', async () => {
    const res = await t.request({ ...list(), merchantAccountId: 'default' });
    expect(res.json()).toEqual((await t.request(list())).json());
  });

  it('is open to embed tokens, as card scheme definitions are (a checkout shows the methods)', async () => {
    const token = await mintToken({ privateKeyPem: t.keys.privateKeyPem, scopes: ['embed'], lifetimeSeconds: 600 });
    const res = await t.request({ ...list(), token });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('is documented with its scope and model', async () => {
    const doc = inlineSchemaRefs((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
    const operation = doc.paths['/payment-method-definitions'].get;
    expect(operation).toMatchObject({
      operationId: 'listPaymentMethodDefinitions',
      'x-required-scopes': ['payment-method-definitions.read'],
    });
    const item = operation.responses['200'].content['application/json'].schema.properties.items.items;
    expect(Object.keys(item.properties)).toEqual(['id', 'icon_url', 'display_name', 'long_display_name', 'method']);
    expect(item.required).toEqual(['id', 'icon_url', 'display_name', 'long_display_name', 'method']);
  });
});

describe('errors', () => {
  it('answers 405 for other methods', async () => {
    expect((await t.request({ method: 'POST', url: '/payment-method-definitions', payload: {} })).statusCode).toBe(405);
  });
});

describe('security', () => {
  runScopeTests(() => t, { request: list, scope: 'payment-method-definitions.read' });
});
