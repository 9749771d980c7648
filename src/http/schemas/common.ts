import { Type, type Static, type TSchema } from 'typebox';

export const Uuid = (options: { description?: string } = {}) => Type.String({ format: 'uuid', ...options });

export const DateTime = (options: { description?: string } = {}) => Type.String({ format: 'date-time', ...options });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * Nullable for response schemas on hot paths: `type: [T, "null"]` instead of `anyOf`. The response
 * serializer writes a type union directly, while for `anyOf` it runs a schema validator per value to
 * pick the branch (measured: most of a transaction response's serialization time). Falls back to
 * `anyOf` for schemas without a single `type` (refs, unions).
 */
export const NullableOut = <T extends TSchema>(schema: T) => {
  const plain = schema as unknown as Record<string, unknown>;
  if (typeof plain.type !== 'string' || plain.anyOf || plain.$ref) return Nullable(schema);
  const enumValues = Array.isArray(plain.enum) ? { enum: [...(plain.enum as unknown[]), null] } : {};
  return Type.Unsafe<Static<T> | null>({ ...plain, ...enumValues, type: [plain.type, 'null'] });
};

/** ISO 4217 alphabetic code: the pattern of the specification, then membership (format `iso-4217`). */
export const Currency = (options: { description?: string } = {}) =>
  Type.String({ pattern: '^[A-Z]{3}$', format: 'iso-4217', description: 'ISO 4217 currency code', ...options });

/** ISO 3166-1 alpha-2 code: the pattern of the specification, then membership (format `iso-3166-alpha-2`). */
export const Country = (options: { description?: string } = {}) =>
  Type.String({
    pattern: '^[A-Z]{2}$',
    format: 'iso-3166-alpha-2',
    description: 'ISO 3166-1 alpha-2 country code',
    ...options,
  });

/**
 * Marks an integer schema as an amount in minor units: a request that sends "12.99" or 12.99
 * there is told "an integer in minor units, e.g. 1299 for 12.99" (http/validation.ts). The
 * keyword is an OpenAPI extension, so the document carries it too.
 */
export const MINOR_UNITS_KEYWORD = 'x-minor-units';

/** An integer amount in the minor units of its currency (cents for USD, yen for JPY). */
export const MinorUnits = (options: { description?: string; minimum?: number; maximum?: number } = {}) =>
  Type.Integer({ ...options, [MINOR_UNITS_KEYWORD]: true });

/** Amount in the smallest unit of its currency. */
export const Amount = (options: { description?: string; maximum?: number } = {}) =>
  MinorUnits({ minimum: 0, maximum: 99_999_999, ...options });

export const ErrorDetailSchema = Type.Object(
  {
    location: Type.Union([
      Type.Literal('query'),
      Type.Literal('body'),
      Type.Literal('path'),
      Type.Literal('header'),
      Type.Literal('unknown'),
    ]),
    pointer: Type.String({ description: 'JSON pointer to the property at fault' }),
    message: Type.String(),
    type: Type.String(),
  },
  { $id: 'ErrorDetail', additionalProperties: false },
);

export const ErrorBodySchema = Type.Object(
  {
    type: Type.Literal('error'),
    code: Type.String(),
    status: Type.Integer(),
    message: Type.String(),
    details: Type.Array(Type.Ref('ErrorDetail')),
    resource_id: Type.Optional(Nullable(Type.String())),
  },
  { $id: 'Error', additionalProperties: false },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;

export const ValidationErrorBodySchema = Type.Object(
  {
    detail: Type.Array(
      Type.Object(
        {
          loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
          msg: Type.String(),
          type: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'HTTPValidationError', additionalProperties: false },
);
export type ValidationErrorBody = Static<typeof ValidationErrorBodySchema>;

/** The shared schemas registered once with `app.addSchema`, so they appear once in OpenAPI. */
export const SHARED_SCHEMAS = [ErrorDetailSchema, ErrorBodySchema, ValidationErrorBodySchema];

export const Cursor = Type.String({
  minLength: 1,
  maxLength: 1000,
  description: 'Page pointer from a previous next_cursor or previous_cursor',
});

/**
 * A query parameter with a default: optional in the OpenAPI document (a client may leave it out,
 * and generated clients make it optional), while validation fills the default in (Ajv
 * `useDefaults`), so the handler's type keeps it present.
 */
export function Defaulted<T extends TSchema>(schema: T): T {
  if (!('default' in schema)) throw new Error('Defaulted: the schema has no default');
  return Type.Optional(schema) as unknown as T;
}

/** The page size of every cursor-paginated list: 1 to 100, 20 when absent. */
export const PageLimit = Defaulted(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size' }));

export const PaginationQuery = {
  cursor: Type.Optional(Cursor),
  limit: PageLimit,
};

/** The list envelope of cursor-paginated lists. */
export const ListEnvelope = <T extends TSchema>(item: T, title: string) =>
  Type.Object(
    {
      items: Type.Array(item),
      limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
      next_cursor: Nullable(Type.String({ minLength: 1, maxLength: 1000 })),
      previous_cursor: Nullable(Type.String({ minLength: 1, maxLength: 1000 })),
    },
    { title, additionalProperties: false },
  );

/** A plain list without cursors. */
export const ItemList = <T extends TSchema>(item: T, title: string) =>
  Type.Object({ items: Type.Array(item) }, { title, additionalProperties: false });

/** A string enumeration as a plain JSON Schema `enum` (one validation error, one OpenAPI enum). */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
