import { describe, expect, it } from 'vitest';
import { inlineSchemaRefs } from '../../test/helpers/openapi-document.ts';
import { hoistTitledSchemas } from './openapi-components.ts';

const address = () => ({ title: 'Address', type: 'object', properties: { city: { type: 'string' } } });
const requestAddress = () => ({
  title: 'Address',
  type: 'object',
  properties: { city: { type: 'string', maxLength: 100 } },
});
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
/** The value at `keys` inside a document. */
const at = (value: unknown, ...keys: Array<string | number>): unknown =>
  keys.reduce((node, key) => (node as Record<string | number, unknown>)[key], value);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function documentWith() {
  const buyer = (addressSchema: unknown) => ({
    title: 'Buyer',
    type: 'object',
    properties: { address: addressSchema, example: { type: 'string' } },
    example: { title: 'Not a schema' },
  });
  return {
    paths: {
      '/buyers': {
        post: {
          parameters: [{ in: 'query', name: 'limit', schema: { title: 'Limit', type: 'integer', default: 20 } }],
          requestBody: json({ title: 'BuyerCreate', type: 'object', properties: { address: requestAddress() } }),
          responses: { 201: { description: 'Created', ...json(buyer(address())) } },
        },
        get: {
          responses: {
            200: {
              description: 'OK',
              ...json({ type: 'object', properties: { items: { type: 'array', items: buyer(address()) } } }),
            },
          },
        },
      },
    },
    components: { schemas: { Error: { type: 'object' } } as Record<string, unknown> },
  };
}

describe('happy', () => {
  it('names each titled body schema once and refers to it; another shape under a title gets a numbered name', () => {
    const original = documentWith();
    const doc = hoistTitledSchemas(documentWith());
    const schemas = at(doc, 'components', 'schemas') as Record<string, unknown>;
    expect(Object.keys(schemas)).toEqual(['Error', 'Address', 'BuyerCreate', 'Address2', 'Buyer']);
    expect(at(doc, 'paths', '/buyers', 'post', 'requestBody')).toEqual(json(ref('BuyerCreate')));
    expect(schemas.BuyerCreate).toEqual({
      title: 'BuyerCreate',
      type: 'object',
      properties: { address: ref('Address') },
    });
    // The response's Address differs from the request's: a name of its own, shared by both operations.
    expect(at(schemas.Buyer, 'properties', 'address')).toEqual(ref('Address2'));
    expect(
      at(
        doc,
        'paths',
        '/buyers',
        'get',
        'responses',
        200,
        'content',
        'application/json',
        'schema',
        'properties',
        'items',
        'items',
      ),
    ).toEqual(ref('Buyer'));
    // Parameters stay inline; an example's `title` is data; a property called `example` is still a schema.
    expect(at(doc, 'paths', '/buyers', 'post', 'parameters')).toEqual(original.paths['/buyers'].post.parameters);
    expect(at(schemas.Buyer, 'example')).toEqual({ title: 'Not a schema' });
    expect(at(schemas.Buyer, 'properties', 'example')).toEqual({ type: 'string' });
    // Inlining the references again gives back the document it started from.
    expect(inlineSchemaRefs(doc).paths).toEqual(original.paths);
  });
});

describe('errors', () => {
  it('never takes an existing component name, and leaves a document without bodies as it was', () => {
    const doc = hoistTitledSchemas({
      paths: {
        '/e': { get: { responses: { 200: { description: 'OK', ...json({ title: 'Error', type: 'string' }) } } } },
      },
      components: { schemas: { Error: { type: 'object' } } },
    });
    expect(at(doc, 'components', 'schemas')).toEqual({
      Error: { type: 'object' },
      Error2: { title: 'Error', type: 'string' },
    });
    expect(hoistTitledSchemas({ paths: { '/h': { get: {} } } })).toEqual({
      paths: { '/h': { get: {} } },
      components: { schemas: {} },
    });
  });
});
