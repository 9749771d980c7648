import fc from 'fast-check';

/**
 * The hostile inputs the fuzzer mixes into every parameter location. Values are JSON values for
 * bodies; `asText` turns one into what a query string, path segment or header would carry.
 */
const WRONG_TYPES: unknown[] = [
  null,
  true,
  false,
  [],
  {},
  [[[]]],
  { a: { b: 1 } },
  '',
  ' ',
  'text',
  0,
  -1,
  1.5,
  -0.0001,
];
const HUGE_NUMBERS: unknown[] = [
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  -(2 ** 63),
  2 ** 64,
  99_999_999_999,
  4_294_967_296,
  1e-300,
];
const UNICODE: string[] = [
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF\uD800',
  '😀'.repeat(50),
  '\u202Eevil',
  'e\u0301\u0301\u0301',
  '\uFEFF',
  '\uFFFF',
  'Ω≈ç√∫',
  '\r\n',
  '\t\u000b\f',
];
const INJECTION: string[] = [
  "' OR '1'='1",
  "'; DROP TABLE transactions; --",
  '" OR ""="',
  '1; SELECT pg_sleep(5)',
  '$1',
  '\\',
  '%',
  '_',
  '%00',
  '%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  '%s%n%x',
  'A'.repeat(10_000),
  '\r\nSet-Cookie: a=b',
];
const BAD_UUIDS: string[] = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5',
  '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5bb',
  '{0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b}',
  '0190a1b2c3d47e5f8a9b0c1d2e3f4a5b',
  'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
];
const BAD_CURSORS: string[] = [
  'garbage',
  'eyJ9',
  Buffer.from('{"v":1,"k":["x"]}').toString('base64url'),
  Buffer.from('{"id":"\' OR 1=1 --"}').toString('base64'),
  '='.repeat(40),
  '%%%',
  'a'.repeat(1000),
  '.',
];
const QUERY_TEXT: string[] = [
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '-0',
  '0x10',
  '1_000',
  '99999999999999999999999999',
  '2026-13-45T25:61:61Z',
  'true',
  'null',
  '[]',
  '{}',
  ',',
  'a,b,,c',
];

const STRINGS = [...UNICODE, ...INJECTION, ...BAD_UUIDS, ...BAD_CURSORS, ...QUERY_TEXT];

/** Any hostile JSON value (a wrong type, a huge number, an awkward string or a random one). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...WRONG_TYPES),
  fc.constantFrom(...HUGE_NUMBERS),
  fc.constantFrom(...STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.double(),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((n) => Number(n)),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A hostile text (query, path segment, header). */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
);

export function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}

/** Raw request bodies a JSON parser must refuse or survive. */
export const RAW_BODIES: string[] = [
  '{',
  '}',
  '{"a":}',
  '{"a":1,}',
  'nul',
  'undefined',
  "{'a':1}",
  '\uFEFF{}',
  '{"a":1}{"b":2}',
  '[]',
  '"text"',
  '123',
  'true',
  'null',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"amount":1e999}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
  JSON.stringify({ a: 'x'.repeat(2 * 1024 * 1024) }),
];

/** Content types a JSON API must refuse with its error body. */
export const CONTENT_TYPES: string[] = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/json, text/plain',
  '*/*',
  ';;;',
];
