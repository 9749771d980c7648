import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { ConnectorRegistry } from '../../../connectors/registry.ts';
import { MockCardConnector, MOCK_CARD_DEFINITION } from '../../../connectors/mock/mock-card.connector.ts';
import { ConnectorError, type PaymentConnector } from '../../../connectors/connector.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  // More catalogue entries than one page, and connectors without sessions or failing upstream.
  const registry = new ConnectorRegistry().register(new MockCardConnector());
  for (const id of ['acme-card', 'beta-ideal', 'zeta-card']) registry.register(variant(id, { sessions: false }));
  registry.register(
    variant('down-card', { sessions: true }, new ConnectorError('timeout', 'provider said: secret-xyz')),
  );
  t.deps.connectors = registry;
});
afterAll(async () => t.close());

function variant(id: string, capabilities: { sessions: boolean }, failure?: Error): PaymentConnector {
  const base = new MockCardConnector();
  const definition = {
    ...MOCK_CARD_DEFINITION,
    id,
    capabilities: { ...MOCK_CARD_DEFINITION.capabilities, ...capabilities },
  };
  return Object.assign(Object.create(base) as PaymentConnector, {
    definition,
    createSession: failure
      ? async () => Promise.reject(failure)
      : capabilities.sessions
        ? base.createSession.bind(base)
        : undefined,
  });
}

const list = (query = '') => t.request({ method: 'GET', url: `/payment-service-definitions${query}` });

describe('happy', () => {
  it('lists the catalogue by id with cursors both ways', async () => {
    const first = await list('?limit=2');
    expect(first.statusCode, first.body).toBe(200);
    const page1 = first.json();
    expect(page1.items.map((d: { id: string }) => d.id)).toEqual(['acme-card', 'beta-ideal']);
    expect(page1).toMatchObject({ limit: 2, previous_cursor: null });
    const page2 = (await list(`?limit=2&cursor=${page1.next_cursor}`)).json();
    expect(page2.items.map((d: { id: string }) => d.id)).toEqual(['down-card', 'mock-card']);
    const page3 = (await list(`?limit=2&cursor=${page2.next_cursor}`)).json();
    expect(page3.items.map((d: { id: string }) => d.id)).toEqual(['zeta-card']);
    expect(page3.next_cursor).toBeNull();
    const back = (await list(`?limit=2&cursor=${page3.previous_cursor}`)).json();
    expect(back.items.map((d: { id: string }) => d.id)).toEqual(['down-card', 'mock-card']);
    expect((await list()).json().items).toHaveLength(5);
  });

  it('reads mock-card in the wire shape', async () => {
    const res = await t.request({ method: 'GET', url: '/payment-service-definitions/mock-card' });
    expect(res.statusCode, res.body).toBe(200);
    const definition = res.json();
    expect(definition).toMatchObject({
      id: 'mock-card',
      type: 'payment-service-definition',
      method: 'card',
      mode: 'card',
      icon_url: null,
      required_checkout_fields: [],
      supported_integration_clients: null,
      configuration: { approval_ui_target: 'any', cart_items_limit: 249 },
    });
    expect(definition.fields).toContainEqual({
      key: 'api_key',
      display_name: 'API key',
      required: false,
      format: 'text',
      secret: true,
      verifiable: false,
    });
    // The simulated processor checks merchant_id when credentials are verified (it refuses "invalid").
    expect(definition.fields).toContainEqual({
      key: 'merchant_id',
      display_name: 'Merchant ID',
      required: true,
      format: 'text',
      secret: false,
      verifiable: true,
    });
    expect(definition.supported_features).toMatchObject({
      partial_capture: true,
      multi_capture: true,
      refunds: true,
      void: true,
      sessions: true,
      redirect: false,
      payouts: true,
    });
    expect(definition.supported_currencies).toContain('EUR');
    expect(definition.supported_countries).toContain('GB');
  });

  it('opens a session without credentials, and needs no merchant account', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/payment-service-definitions/mock-card/sessions',
      payload: { domain: 'shop.example' },
      merchantAccountId: 'no-such-account',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      type: 'payment-service-session',
      status: 'succeeded',
      code: null,
      status_code: 200,
      response_body: { merchant_id: null },
    });
  });
});

describe('errors', () => {
  it('answers 404 for an unknown definition', async () => {
    const res = await t.request({ method: 'GET', url: '/payment-service-definitions/nope-card' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      code: 'not_found',
      message:
        'unknown payment_service_definition_id "nope-card"; valid ids: acme-card, beta-ideal, down-card, mock-card, zeta-card',
    });
    expect(
      (await t.request({ method: 'POST', url: '/payment-service-definitions/nope-card/sessions', payload: {} }))
        .statusCode,
    ).toBe(404);
  });

  it('answers 400 for a definition without sessions', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/payment-service-definitions/acme-card/sessions',
      payload: {},
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('The payment service definition acme-card does not support sessions');
  });

  it('answers 504 when the provider times out, without its message', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/payment-service-definitions/down-card/sessions',
      payload: {},
    });
    expect(res.statusCode).toBe(504);
    expect(res.body).not.toContain('secret-xyz');
  });

  it('refuses a forged or edited cursor and a bad limit', async () => {
    expect((await list('?cursor=abc.def')).statusCode).toBe(400);
    const [payload, mac] = (await list('?limit=1')).json().next_cursor.split('.');
    const edited = Buffer.from(JSON.stringify({ d: 'n', k: ['1970-01-01T00:00:00.000Z', 'zeta-card'] })).toString(
      'base64url',
    );
    expect(payload).not.toBe(edited);
    expect((await list(`?cursor=${edited}.${mac}`)).statusCode).toBe(400);
    expect((await list('?limit=0')).statusCode).toBe(422);
    expect((await list('?limit=101')).statusCode).toBe(422);
  });
});

describe('security', () => {
  describe('list', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: '/payment-service-definitions' }),
      scope: 'payment-service-definitions.read',
    }));
  describe('get', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: '/payment-service-definitions/mock-card' }),
      scope: 'payment-service-definitions.read',
    }));
  describe('session', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/payment-service-definitions/mock-card/sessions', payload: {} }),
      scope: 'payment-service-definitions.write',
    }));
});
