import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { inlineSchemaRefs } from '../helpers/openapi-document.ts';

/**
 * The public API's newer clients (the 2.x line) parse answers strictly: each field below is
 * required in their models. The OpenAPI document must declare them so (issue 49, item 6); each
 * module's tests check their values through HTTP.
 */
let t: TestApp;
let doc: { paths: Record<string, Record<string, Operation>> };
beforeAll(async () => {
  t = await buildTestApp();
  doc = inlineSchemaRefs((await t.request({ method: 'GET', url: '/openapi.json', token: null })).json());
});
afterAll(async () => t.close());

interface Schema {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  enum?: string[];
}
interface Operation {
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

const json = (content: Record<string, { schema: Schema }> | undefined) => content!['application/json']!.schema;
const response = (method: string, path: string, status = '200') =>
  json(doc.paths[path]![method]!.responses[status]!.content);
const request = (method: string, path: string) => json(doc.paths[path]![method]!.requestBody!.content);
/** The schema without its null alternative. */
const solid = (schema: Schema): Schema => schema.anyOf?.find((s) => s.type !== 'null') ?? schema;
const nullable = (schema: Schema) =>
  (schema.anyOf?.some((s) => s.type === 'null') ?? false) ||
  (Array.isArray(schema.type) && schema.type.includes('null'));
const at = (schema: Schema, ...keys: string[]) =>
  keys.reduce((s, key) => (key === '[]' ? solid(s).items! : solid(s).properties![key]!), schema);

function expectRequired(schema: Schema, fields: Record<string, { type: string; nullable?: boolean }>) {
  const object = solid(schema);
  for (const [name, expected] of Object.entries(fields)) {
    expect(object.required, name).toContain(name);
    const field = object.properties![name]!;
    expect(solid(field).type, name).toBe(expected.type);
    expect(nullable(field), `${name} nullable`).toBe(expected.nullable ?? false);
  }
}

describe('happy', () => {
  it('API key pair: thumbprint, and algorithm from ECDSA | RSA', () => {
    for (const schema of [
      response('get', '/api-key-pairs/{api_key_pair_id}'),
      response('post', '/api-key-pairs', '201'),
      at(response('get', '/api-key-pairs'), 'items', '[]'),
    ]) {
      expectRequired(schema, { thumbprint: { type: 'string' }, algorithm: { type: 'string' } });
      expect(at(schema, 'algorithm').enum).toEqual(['ECDSA', 'RSA']);
    }
  });

  it('buyer: reconciliation_id', () => {
    for (const schema of [
      response('get', '/buyers/{buyer_id}'),
      response('post', '/buyers', '201'),
      at(response('get', '/buyers'), 'items', '[]'),
    ]) {
      expectRequired(schema, { reconciliation_id: { type: 'string' } });
    }
  });

  it('payment method: scheme_transaction_id and its scheme, both nullable', () => {
    const fields = {
      scheme_transaction_id: { type: 'string', nullable: true },
      scheme_transaction_id_scheme: { type: 'string', nullable: true },
    };
    expectRequired(response('get', '/payment-methods/{payment_method_id}'), fields);
    expectRequired(at(response('get', '/payment-methods'), 'items', '[]'), fields);
    expectRequired(at(response('get', '/buyers/payment-methods'), 'items', '[]'), fields);
  });

  it('gift card summaries: usage_count and cit_usage_count', () => {
    for (const schema of [
      at(response('get', '/buyers/gift-cards'), 'items', '[]'),
      at(response('post', '/gift-cards/balances'), 'items', '[]'),
    ]) {
      expectRequired(schema, { usage_count: { type: 'integer' }, cit_usage_count: { type: 'integer' } });
    }
  });

  it('payment service definition fields: verifiable', () => {
    const definition = response('get', '/payment-service-definitions/{payment_service_definition_id}');
    expectRequired(at(definition, 'fields', '[]'), { verifiable: { type: 'boolean' } });
    expectRequired(at(definition, 'reporting_fields', '[]'), { verifiable: { type: 'boolean' } });
  });

  it('refund: settled', () => {
    for (const schema of [
      response('get', '/refunds/{refund_id}'),
      at(response('get', '/transactions/{transaction_id}/refunds'), 'items', '[]'),
      response('post', '/transactions/{transaction_id}/refunds', '201'),
    ]) {
      expectRequired(schema, { settled: { type: 'boolean' } });
    }
  });

  it('Paze session review: delivery contact details, the card descriptor, billing address and card art', () => {
    const review = response('post', '/digital-wallets/paze/session/review');
    expectRequired(review, { shippingAddress: { type: 'object', nullable: true } });
    expectRequired(at(review, 'shippingAddress'), { deliveryContactDetails: { type: 'object', nullable: true } });
    expectRequired(at(review, 'maskedCard'), {
      paymentCardDescriptor: { type: 'string' },
      billingAddress: { type: 'object', nullable: true },
      digitalCardData: { type: 'object' },
    });
    expectRequired(at(review, 'maskedCard', 'digitalCardData'), {
      artUri: { type: 'string' },
      artHeight: { type: 'integer' },
      artWidth: { type: 'integer' },
    });
  });

  it('3DS scenario: outcome.version optional (nullable) on create, always in the answer', () => {
    const outcome = at(request('post', '/three-ds-scenarios'), 'outcome');
    expect(solid(outcome).required).toEqual(['authentication']);
    expect(nullable(at(outcome, 'version'))).toBe(true);
    expectRequired(at(response('post', '/three-ds-scenarios', '201'), 'outcome'), { version: { type: 'string' } });
  });
});
