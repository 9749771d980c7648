import { Ajv } from 'ajv';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { Country, Currency, Nullable, SHARED_SCHEMAS, StringEnum } from './schemas/common.ts';
import {
  buildValidatorCompiler,
  lazyValidator,
  MAX_DATE_TIME_LENGTH,
  toValidationBody,
  type Validator,
} from './validation.ts';

const compile = buildValidatorCompiler(SHARED_SCHEMAS);

function validate(schema: object, value: unknown, httpPart = 'body') {
  const check = compile({ schema, httpPart, method: 'POST', url: '/' }) as unknown as ((v: unknown) => boolean) & {
    errors: never[];
  };
  const ok = check(value);
  return ok ? null : toValidationBody(check.errors, httpPart === 'querystring' ? 'querystring' : httpPart);
}

const Body = Type.Object(
  {
    currency: Currency(),
    country: Type.Optional(Country()),
    amount: Type.Integer({ minimum: 0, maximum: 99_999_999 }),
    note: Type.Optional(Nullable(Type.String({ maxLength: 3 }))),
    kind: Type.Optional(StringEnum(['a', 'b'])),
    cart_items: Type.Optional(Type.Array(Type.Object({ quantity: Type.Integer({ minimum: 1 }) }))),
  },
  { additionalProperties: false },
);

describe('happy', () => {
  it('accepts valid input and drops unknown fields', () => {
    const value: Record<string, unknown> = { currency: 'JPY', country: 'JP', amount: 100, extra: true };
    expect(validate(Body, value)).toBeNull();
    expect(value).not.toHaveProperty('extra');
  });

  it('accepts RFC 3339 date-times with a zone, up to MAX_DATE_TIME_LENGTH characters', () => {
    const DateTime = Type.String({ format: 'date-time' });
    for (const value of ['2025-01-01T00:00:00Z', '2025-01-01 00:00:00.123456789+05:30', '2024-02-29t23:59:60z'])
      expect(validate(DateTime, value), value).toBeNull();
    const longest = `2025-01-01T00:00:00.${'1'.repeat(MAX_DATE_TIME_LENGTH - 21)}Z`;
    expect(longest).toHaveLength(MAX_DATE_TIME_LENGTH);
    expect(validate(DateTime, longest)).toBeNull();
    for (const value of [`${longest.slice(0, -1)}1Z`, '2025-01-01T00:00:00', '2025-02-30T00:00:00Z', ' '.repeat(1024)])
      expect(validate(DateTime, value)!.detail, value).toEqual([
        {
          loc: ['body'],
          msg: 'Input should be a valid date-time (ISO 8601 with a time zone)',
          type: 'date_time_parsing',
        },
      ]);
  });
});

describe('errors', () => {
  it('reports each failure once with its full location, array indexes as integers', () => {
    const result = validate(Body, {
      currency: 'XXZ',
      country: 'QQ',
      amount: 1.5,
      note: 'long',
      kind: 'c',
      cart_items: [{ quantity: 1 }, { quantity: 0 }],
    });
    expect(result!.detail).toEqual([
      { loc: ['body', 'currency'], msg: 'Input should be a valid ISO 4217 currency code', type: 'iso_4217_parsing' },
      {
        loc: ['body', 'country'],
        msg: 'Input should be a valid ISO 3166-1 alpha-2 country code',
        type: 'iso_3166_alpha_2_parsing',
      },
      { loc: ['body', 'amount'], msg: 'Input should be a valid integer', type: 'integer_type' },
      { loc: ['body', 'note'], msg: 'String should have at most 3 characters', type: 'string_too_long' },
      { loc: ['body', 'kind'], msg: 'Input should be one of "a", "b"', type: 'enum' },
      {
        loc: ['body', 'cart_items', 1, 'quantity'],
        msg: 'Input should be greater than or equal to 1',
        type: 'greater_than_equal',
      },
    ]);
  });

  it('reports missing fields under their own name', () => {
    expect(validate(Body, {})!.detail).toEqual([
      { loc: ['body', 'currency'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'amount'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('maps querystring to query and coerces text values there only', () => {
    const Query = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100 }) });
    expect(validate(Query, { limit: '20' }, 'querystring')).toBeNull();
    expect(validate(Query, { limit: '0' }, 'querystring')!.detail[0]!.loc).toEqual(['query', 'limit']);
    expect(validate(Type.Object({ amount: Type.Integer() }), { amount: '20' })!.detail[0]!.type).toBe('integer_type');
  });

  it('reports the nested field of a nullable object, without a summary of the union', () => {
    const Inner = Type.Object(
      { kind: Type.String(), value: Type.Optional(Type.String({ maxLength: 2 })) },
      { additionalProperties: false },
    );
    const Outer = Type.Object({
      details: Type.Optional(
        Nullable(Type.Object({ inner: Type.Optional(Nullable(Inner)) }, { additionalProperties: false })),
      ),
    });
    expect(validate(Outer, { details: { inner: { value: 'abc' } } })!.detail).toEqual([
      { loc: ['body', 'details', 'inner', 'kind'], msg: 'Field required', type: 'missing' },
      {
        loc: ['body', 'details', 'inner', 'value'],
        msg: 'String should have at most 2 characters',
        type: 'string_too_long',
      },
    ]);
  });
});

describe('map keys', () => {
  it('names the offending key of a map once', () => {
    const MapBody = Type.Object({
      metadata: Type.Record(Type.String(), Type.String(), { propertyNames: { maxLength: 3 } }),
    });
    const result = validate(MapBody, { metadata: { toolong: 'x', ok: 'y' } });
    expect(result!.detail).toEqual([
      { loc: ['body', 'metadata', 'toolong'], msg: 'String should have at most 3 characters', type: 'string_too_long' },
    ]);
  });
});

describe('lazyValidator', () => {
  it('compiles on the first call only, and gives each call its own errors', () => {
    let compilations = 0;
    const ajv = new Ajv({ allErrors: true });
    const check = lazyValidator(() => {
      compilations++;
      return ajv.compile({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    });
    expect(compilations).toBe(0);
    // Fastify hands the parent object only to a function with Ajv's `schemaEnv`.
    expect(check.schemaEnv).toBeTruthy();
    expect(check({ n: 'x' })).toBe(false);
    expect(check.errors?.map((e) => e.instancePath)).toEqual(['/n']);
    expect(check({ n: 1 })).toBe(true);
    expect(check.errors).toBeNull();
    expect(check({})).toBe(false);
    expect(check.errors?.map((e) => e.keyword)).toEqual(['required']);
    expect(compilations).toBe(1);
  });

  it('passes the parent on, so a coerced root value replaces the request part', () => {
    const check = compile({
      schema: { type: 'array', items: { type: 'string' } },
      httpPart: 'querystring',
      method: 'GET',
      url: '/',
    }) as unknown as Validator;
    const request: Record<string, unknown> = { query: 'one' };
    expect(check(request.query, { parentData: request, parentDataProperty: 'query' })).toBe(true);
    expect(request.query).toEqual(['one']);
  });
});
