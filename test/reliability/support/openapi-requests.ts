import fc from 'fast-check';
import { asText, CONTENT_TYPES, hostileText, hostileValue, RAW_BODIES } from './hostile-values.ts';

/** The part of an OpenAPI 3 document the fuzzer reads. */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  minLength?: number;
  pattern?: string;
  default?: unknown;
}
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  schema: Schema;
  required?: boolean;
}
/** `page`: the operation answers an HTML page (a buyer's page), which may answer its refusals as pages too. */
export interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  body: Schema | null;
  page: boolean;
}

export interface FuzzRequest {
  operationId: string;
  /** What was mutated, for the failure list. */
  mutation: string;
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string;
}

type Responses = Record<string, { content?: Record<string, unknown> }>;

export function operationsOf(doc: {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: Schema }> };
        responses?: Responses;
      }
    >
  >;
}): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      operationId: op.operationId,
      parameters: op.parameters ?? [],
      body: op.requestBody?.content['application/json']?.schema ?? null,
      page: Object.keys(op.responses?.['200']?.content ?? {}).join() === 'text/html',
    })),
  );
}

const PATTERN_SAMPLES: Array<[RegExp, string]> = [
  [/\[A-Z\]\{3\}/, 'USD'],
  [/\[A-Z\]\{2\}/, 'US'],
  [/\\d\{2\}\/\\d\{2\}/, '12/40'],
];

/** A plausible valid value for a schema, so that one mutated field is what the server judges. */
export function sampleOf(schema: Schema | undefined, validIds: Record<string, string>, name = ''): unknown {
  if (!schema) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const branch = schema.anyOf ?? schema.oneOf;
  if (branch) return sampleOf(branch.find((s) => s.type !== 'null') ?? branch[0], validIds, name);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((key) => [key, sampleOf(schema.properties?.[key], validIds, key)]),
      );
    case 'array':
      return [sampleOf(schema.items, validIds, name)];
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return true;
    default:
      if (validIds[name]) return validIds[name];
      if (schema.format === 'uuid') return '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
      if (schema.format === 'uri' || name.endsWith('url')) return 'https://example.com/x';
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (name === 'number') return '4111111111111111';
      for (const [pattern, value] of PATTERN_SAMPLES) if (schema.pattern && pattern.test(schema.pattern)) return value;
      return 'x'.repeat(Math.max(schema.minLength ?? 1, 1));
  }
}

/** Paths of the leaves and objects of a sample body, each a place to put a hostile value. */
function placesOf(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const children = Object.entries(value as Record<string, unknown>).flatMap(([key, child]) =>
    placesOf(child, [...prefix, key]),
  );
  return [prefix, ...children];
}

function setAt(root: unknown, place: string[], value: unknown): unknown {
  if (place.length === 0) return value;
  const copy = Array.isArray(root) ? [...root] : { ...(root as Record<string, unknown>) };
  (copy as Record<string, unknown>)[place[0]!] = setAt(
    (copy as Record<string, unknown>)[place[0]!],
    place.slice(1),
    value,
  );
  return copy;
}

/** Percent-encodes the UTF-8 bytes of any string (a lone surrogate included, which encodeURIComponent refuses). */
function encode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Path values starting with RAW_SEGMENT go into the URL as they are (malformed percent-encoding). */
const RAW_SEGMENT = '\u0001raw:';

function buildUrl(op: Operation, pathValues: Record<string, string>, query: Array<[string, string]>): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = pathValues[name] ?? 'x';
    return value.startsWith(RAW_SEGMENT) ? value.slice(RAW_SEGMENT.length) : encode(value);
  });
  const search = query
    .map(([k, v]) => `${encode(k)}=${v.startsWith(RAW_SEGMENT) ? v.slice(RAW_SEGMENT.length) : encode(v)}`)
    .join('&');
  return search ? `${path}?${search}` : path;
}

type Parts = { pathValues: Record<string, string>; query: Array<[string, string]>; body: unknown };

/** How to build requests for one operation: `valid()` plausible parts, `base()` a request from parts. */
function builderOf(op: Operation, validIds: Record<string, string>) {
  const valid = (): Parts => {
    const pathValues: Record<string, string> = {};
    for (const p of op.parameters.filter((p) => p.in === 'path'))
      pathValues[p.name] = validIds[p.name] ?? asText(sampleOf(p.schema, validIds, p.name));
    const query: Array<[string, string]> = op.parameters
      .filter((p) => p.in === 'query' && p.required)
      .map((p) => [p.name, asText(sampleOf(p.schema, validIds, p.name))]);
    return { pathValues, query, body: op.body ? sampleOf(op.body, validIds) : undefined };
  };
  const base = (
    mutation: string,
    parts: Parts,
    headers: Record<string, string | string[]> = {},
    payload?: string,
  ): FuzzRequest => ({
    operationId: op.operationId,
    mutation,
    method: op.method,
    url: buildUrl(op, parts.pathValues, parts.query),
    headers: {
      ...(payload !== undefined || parts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    payload: payload ?? (parts.body === undefined ? undefined : JSON.stringify(parts.body)),
  });
  return { valid, base };
}

type Builder = ReturnType<typeof builderOf>;

/** A hostile value in one path, query or header parameter; malformed percent-encoding in one path or query value. */
function parameterMutations(op: Operation, { valid, base }: Builder): Array<fc.Arbitrary<FuzzRequest>> {
  const choices: Array<fc.Arbitrary<FuzzRequest>> = [];
  const params = op.parameters.filter(
    (p) => !['x-svc-merchant-account-id', 'idempotency-key'].includes(p.name) || p.in !== 'header',
  );
  if (params.length > 0) {
    choices.push(
      fc.tuple(fc.constantFrom(...params), hostileText).map(([p, text]) => {
        const parts = valid();
        if (p.in === 'path') parts.pathValues[p.name] = text;
        if (p.in === 'query') parts.query.push([p.name, text]);
        return base(
          `${p.in} ${p.name}=${JSON.stringify(text).slice(0, 60)}`,
          parts,
          p.in === 'header' ? { [p.name]: text } : {},
        );
      }),
    );
  }
  const located = op.parameters.filter((p) => p.in === 'path' || p.in === 'query');
  if (located.length > 0) {
    choices.push(
      fc
        .tuple(
          fc.constantFrom(...located),
          fc.constantFrom('%', '%zz', '%E0%A4%A', '%c0%ae%c0%ae', '%00', '..%2f..', '%u0041', '%FF%FE'),
        )
        .map(([p, raw]) => {
          const parts = valid();
          if (p.in === 'path') parts.pathValues[p.name] = `${RAW_SEGMENT}${raw}`;
          else parts.query.push([p.name, `${RAW_SEGMENT}${raw}`]);
          return base(`malformed encoding ${p.in} ${p.name}=${raw}`, parts);
        }),
    );
  }
  return choices;
}

/** Duplicate query parameters, a cursor of another list, duplicate and oversized headers. */
function duplicateMutations(
  op: Operation,
  { valid, base }: Builder,
  foreignCursor: string,
): Array<fc.Arbitrary<FuzzRequest>> {
  const choices: Array<fc.Arbitrary<FuzzRequest>> = [];
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  if (queryParams.length > 0) {
    choices.push(
      fc.tuple(fc.constantFrom(...queryParams), hostileText, hostileText).map(([p, a, b]) => {
        const parts = valid();
        parts.query.push([p.name, a], [p.name, b]);
        return base(`duplicate query ${p.name}`, parts);
      }),
    );
    if (queryParams.some((p) => p.name === 'cursor'))
      choices.push(
        fc.constant(base('foreign cursor', { ...valid(), query: [...valid().query, ['cursor', foreignCursor]] })),
      );
  }
  choices.push(
    fc
      .constantFrom('a', 'x'.repeat(300), 'a\u0001b')
      .map((id) => base(`merchant header ${id.slice(0, 20)}`, valid(), { 'x-svc-merchant-account-id': id })),
  );
  choices.push(fc.constant(base('duplicate idempotency-key header', valid(), { 'idempotency-key': ['k1', 'k2'] })));
  return choices;
}

/** A hostile value at one place of the body; a raw body; a wrong content type. */
function bodyMutations(
  op: Operation,
  validIds: Record<string, string>,
  { valid, base }: Builder,
): Array<fc.Arbitrary<FuzzRequest>> {
  if (!op.body) return [];
  const places = placesOf(sampleOf(op.body, validIds));
  return [
    fc.tuple(fc.constantFrom(...places), hostileValue).map(([place, value]) => {
      const parts = valid();
      parts.body = setAt(parts.body, place, value);
      return base(`body ${place.join('.') || '(root)'}=${asText(value).slice(0, 60)}`, parts);
    }),
    fc.constantFrom(...RAW_BODIES).map((raw) => base(`raw body ${raw.slice(0, 40)}`, valid(), {}, raw)),
    fc.constantFrom(...CONTENT_TYPES).map((type) => base(`content-type ${type}`, valid(), { 'content-type': type })),
  ];
}

/** An arbitrary request for one operation: one location mutated, everything else plausible. */
export function requestArbitrary(
  op: Operation,
  validIds: Record<string, string>,
  foreignCursor: string,
): fc.Arbitrary<FuzzRequest> {
  const builder = builderOf(op, validIds);
  return fc.oneof(
    ...parameterMutations(op, builder),
    ...duplicateMutations(op, builder, foreignCursor),
    ...bodyMutations(op, validIds, builder),
  );
}
