/**
 * A plausible value for a request schema (TypeBox, i.e. JSON Schema): the required properties
 * only, each the schema's first example, const or enum value when it has one, else a value of
 * its type and format. Good enough for a request to get past validation on most routes; a route
 * whose rules need a real value (an id that exists, a pattern) gets its body from the test.
 */

type Schema = Record<string, any>;

export interface SampleContext {
  /** Ids to use for a property of this name (`buyer_id`, `payment_service_id`, ...). */
  ids: Record<string, string>;
  /** Resolves a `$ref` (the app's shared schemas). */
  resolve?: (ref: string) => Schema | undefined;
}

const FORMATS: Record<string, string> = {
  uuid: '00000000-0000-7000-8000-000000000000',
  email: 'pat@example.com',
  'date-time': '2030-01-01T00:00:00.000Z',
  date: '2030-01-01',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  ipv4: '203.0.113.7',
  ipv6: '2001:db8::7',
};

function stringSample(schema: Schema, name: string, context: SampleContext): string {
  if (context.ids[name]) return context.ids[name]!;
  if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format]!;
  if (/currency/.test(name)) return 'USD';
  if (/country/.test(name)) return 'US';
  if (/url$/.test(name)) return 'https://example.com/return';
  if (/email/.test(name)) return 'pat@example.com';
  const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
  return 'x'.repeat(Math.max(min, Math.min(8, schema.maxLength ?? 8)));
}

export function sampleOf(schema: Schema | undefined, context: SampleContext, name = '', depth = 0): unknown {
  if (!schema || depth > 8) return undefined;
  if (schema.$ref) return sampleOf(context.resolve?.(schema.$ref), context, name, depth + 1);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) {
    const choice = union.find((s: Schema) => s.type !== 'null') ?? union[0];
    return sampleOf(choice, context, name, depth + 1);
  }
  if (Array.isArray(schema.allOf))
    return Object.assign({}, ...schema.allOf.map((s: Schema) => sampleOf(s, context, name, depth + 1) ?? {}));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) {
        const value = sampleOf(schema.properties?.[key], context, key, depth + 1);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
    case 'array': {
      const count = Math.max(schema.minItems ?? 0, 1);
      const item = sampleOf(schema.items, context, name, depth + 1);
      return item === undefined ? [] : Array.from({ length: count }, () => item);
    }
    case 'string':
      return stringSample(schema, name, context);
    case 'integer':
    case 'number':
      return Math.max(
        typeof schema.minimum === 'number' ? schema.minimum : 1,
        typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1,
      );
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return undefined;
  }
}
