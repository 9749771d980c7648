import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isCountry } from '../lib/countries.ts';
import { isCurrency } from '../lib/currencies.ts';
import { MINOR_UNITS_KEYWORD, type ValidationErrorBody } from './schemas/common.ts';

const addFormats = addFormatsModule as unknown as ((ajv: Ajv) => Ajv) & {
  get: (name: string) => {
    validate: (value: string) => boolean;
    compare?: (a: string, b: string) => number | undefined;
  };
};

/**
 * The longest date-time accepted: RFC 3339's longest usual form, `2025-01-01T00:00:00.123456789+05:30`,
 * is 35 characters; 64 leaves room for more fraction digits. ajv-formats' check splits the whole
 * value on each whitespace before looking at it, so 1 MiB of spaces built a million strings (60 ms
 * of CPU on a slow host, issue 48's bound is 100): a longer value fails before that split.
 */
export const MAX_DATE_TIME_LENGTH = 64;
const RFC3339_DATE_TIME = addFormats.get('date-time');

const BASE: Options = {
  allErrors: true,
  // Unknown body fields are dropped, never stored or echoed (decision 0002).
  removeAdditional: true,
  useDefaults: true,
  strict: false,
  // Errors carry their schema, so an amount's error can teach minor units (MINOR_UNITS_KEYWORD).
  verbose: true,
};

function makeAjv(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ ...BASE, coerceTypes });
  addFormats(ajv);
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) => value.length <= MAX_DATE_TIME_LENGTH && RFC3339_DATE_TIME.validate(value),
    ...(RFC3339_DATE_TIME.compare ? { compare: RFC3339_DATE_TIME.compare } : {}),
  });
  ajv.addFormat('iso-4217', { type: 'string', validate: isCurrency });
  ajv.addFormat('iso-3166-alpha-2', { type: 'string', validate: isCountry });
  return ajv;
}

const FORMAT_NAMES: Record<string, string> = {
  uuid: 'UUID',
  'date-time': 'date-time (ISO 8601 with a time zone)',
  'iso-4217': 'ISO 4217 currency code',
  'iso-3166-alpha-2': 'ISO 3166-1 alpha-2 country code',
};

/** What Fastify passes as Ajv's second argument: the parent object and property of the validated value. */
interface ParentContext {
  parentData: unknown;
  parentDataProperty: string | number;
}

/** An Ajv validator as Fastify calls it: `errors` is read after a call that returned false. */
export interface Validator {
  (data: unknown, parent?: ParentContext): boolean;
  errors?: ErrorObject[] | null;
  /**
   * Set on every function Ajv compiles; Fastify passes the request as the parent of the validated
   * part only to a function that has it, which lets coercion and defaults replace a root value.
   */
  schemaEnv: unknown;
}

/**
 * A validator compiled on its first call (`compile` runs once). Compiling every route's schemas
 * at start took 1 to 2 s of it and about 90 MB of resident memory (decision 0098);
 * a server now compiles what it is asked. Each call copies
 * the compiled function's `errors`, which Fastify reads right after the call.
 */
export function lazyValidator(compile: () => ValidateFunction): Validator {
  let validate: ValidateFunction | undefined;
  const run = ((data: unknown, parent?: ParentContext) => {
    validate ??= compile();
    // Ajv fills in the rest of its context (path, root, anchors) when they are missing.
    const valid = validate(data, parent as Parameters<ValidateFunction>[1]) as boolean;
    run.errors = validate.errors;
    return valid;
  }) as Validator;
  run.schemaEnv = true;
  return run;
}

/**
 * JSON bodies are validated without type coercion ("100" is not an integer), while query strings,
 * path parameters and headers, which are text on the wire, are coerced ("20" → 20, one value → array).
 * Each route's validator is compiled on its first request (`lazyValidator`); Ajv keeps one
 * compilation per schema object, so routes sharing a schema share it.
 */
export function buildValidatorCompiler(sharedSchemas: object[]): FastifySchemaCompiler<unknown> {
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv('array');
  for (const schema of sharedSchemas) {
    bodyAjv.addSchema(schema);
    textAjv.addSchema(schema);
  }
  return ({ schema, httpPart }) =>
    lazyValidator(() => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object));
}

/** What an amount field answers to "12.99" or 12.99. */
export const MINOR_UNITS_MESSAGE = 'an integer in minor units, e.g. 1299 for 12.99';

const LOCATIONS: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

type Loc = (string | number)[];

function pathToLoc(instancePath: string): Loc {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

function describe(error: ErrorObject): { extra: Loc; msg: string; type: string } {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { extra: [String(p.missingProperty)], msg: 'Field required', type: 'missing' };
    case 'additionalProperties':
      return { extra: [String(p.additionalProperty)], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'type': {
      const expected = String(p.type).split(',')[0];
      if (
        expected === 'integer' &&
        (error.parentSchema as Record<string, unknown> | undefined)?.[MINOR_UNITS_KEYWORD] === true
      ) {
        return { extra: [], msg: `Input should be ${MINOR_UNITS_MESSAGE}`, type: 'integer_type' };
      }
      const names: Record<string, string> = {
        integer: 'a valid integer',
        number: 'a valid number',
        string: 'a valid string',
        boolean: 'a valid boolean',
        object: 'a valid object',
        array: 'a valid list',
        null: 'null',
      };
      return {
        extra: [],
        msg: `Input should be ${names[expected!] ?? expected}`,
        type: `${expected === 'array' ? 'list' : expected === 'object' ? 'dict' : expected}_type`,
      };
    }
    case 'minimum':
      return { extra: [], msg: `Input should be greater than or equal to ${p.limit}`, type: 'greater_than_equal' };
    case 'maximum':
      return { extra: [], msg: `Input should be less than or equal to ${p.limit}`, type: 'less_than_equal' };
    case 'exclusiveMinimum':
      return { extra: [], msg: `Input should be greater than ${p.limit}`, type: 'greater_than' };
    case 'exclusiveMaximum':
      return { extra: [], msg: `Input should be less than ${p.limit}`, type: 'less_than' };
    case 'minLength':
      return {
        extra: [],
        msg: `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`,
        type: 'string_too_short',
      };
    case 'maxLength':
      return { extra: [], msg: `String should have at most ${p.limit} characters`, type: 'string_too_long' };
    case 'minItems':
      return {
        extra: [],
        msg: `List should have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`,
        type: 'too_short',
      };
    case 'maxItems':
      return { extra: [], msg: `List should have at most ${p.limit} items`, type: 'too_long' };
    case 'pattern':
      return { extra: [], msg: `String should match pattern '${p.pattern}'`, type: 'string_pattern_mismatch' };
    case 'format':
      return {
        extra: [],
        msg: `Input should be a valid ${FORMAT_NAMES[String(p.format)] ?? p.format}`,
        type: `${String(p.format).replace(/-/g, '_')}_parsing`,
      };
    case 'const':
      return { extra: [], msg: `Input should be ${JSON.stringify(p.allowedValue)}`, type: 'literal_error' };
    case 'enum':
      return {
        extra: [],
        msg: `Input should be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        type: 'enum',
      };
    default:
      return { extra: [], msg: error.message ?? 'Invalid value', type: 'value_error' };
  }
}

/**
 * Turns Ajv's error list into the 422 body. Unions make Ajv report one error per branch plus an
 * `anyOf` summary; where a field (or, for a nullable object, a field nested in it) has a concrete
 * error, the summary and the "should be null" of a nullable union are noise and are left out.
 */
export function toValidationBody(errors: ErrorObject[], context: string): ValidationErrorBody {
  const location = LOCATIONS[context] ?? context;
  const concrete = new Set(
    errors
      .filter(
        (e) =>
          !['anyOf', 'oneOf', 'const', 'if'].includes(e.keyword) && !(e.keyword === 'type' && e.params.type === 'null'),
      )
      .map((e) => e.instancePath),
  );
  // A nullable object whose own field is wrong reports that field, not "does not match any form"
  // (only for nullable unions: a union of several shapes keeps its summary).
  const nullable = new Set(
    errors.filter((e) => e.keyword === 'type' && e.params.type === 'null').map((e) => e.instancePath),
  );
  const hasConcrete = (path: string) =>
    concrete.has(path) || (nullable.has(path) && [...concrete].some((p) => p.startsWith(`${path}/`)));
  const seen = new Set<string>();
  const detail: ValidationErrorBody['detail'] = [];
  for (const error of errors) {
    // propertyNames reports the bad key twice: once as its own error (with propertyName), once as a summary.
    if (error.keyword === 'propertyNames') continue;
    // An if/then/else form (http/schemas/discriminated.ts) reports "must match then" beside the errors of that form.
    if (error.keyword === 'if') continue;
    const isSummary = error.keyword === 'anyOf' || error.keyword === 'oneOf';
    const isNullBranch = error.keyword === 'type' && error.params.type === 'null';
    const isLiteralBranch = error.keyword === 'const';
    if ((isSummary || isNullBranch || isLiteralBranch) && hasConcrete(error.instancePath)) continue;
    if (isNullBranch) continue;
    const { extra, msg, type } = describe(error);
    const propertyName = (error as ErrorObject & { propertyName?: string }).propertyName;
    const loc = [
      location,
      ...pathToLoc(error.instancePath),
      ...(propertyName !== undefined ? [propertyName] : []),
      ...extra,
    ];
    const key = JSON.stringify([loc, type]);
    if (seen.has(key)) continue;
    seen.add(key);
    detail.push({
      loc,
      msg: isSummary ? 'Input does not match any allowed form' : msg,
      type: isSummary ? 'union_error' : type,
    });
  }
  return { detail };
}
