import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildValidatorCompiler } from '../../src/http/validation.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { bestCpuWithinLimit, CPU_LIMIT_MS, cpuLimitMs, cpuMs, MIB } from './linear-patterns.support.ts';
import { PATTERNS, SCANS, type PatternEntry } from './linear-patterns.table.ts';

/**
 * Every pattern the server applies to request data runs in linear time (docs/security.md,
 * "Patterns applied to request data"): each is applied to adversarial inputs of 1 MiB, through
 * HTTP where a route reaches it, and must take under 100 ms of CPU.
 */

let t: TestApp;
let target: Server;
let base: string;
beforeAll(async () => {
  // The target answers small and fast: the CPU measured is the server's own work on the body.
  target = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  t = await buildTestApp({ VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true' });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => target.close(resolve));
});

/** A JSON body `{"note": <text>}` of exactly `size` bytes: `text` is `head`, filled with `fill` to size, then `tail`. */
function noteBody(size: number, head: string, fill: string, tail = ''): string {
  const room = size - JSON.stringify({ note: head + tail }).length;
  const filler = fill.repeat(Math.ceil(room / fill.length)).slice(0, room);
  const body = JSON.stringify({ note: head + filler + tail });
  expect(Buffer.byteLength(body)).toBe(size);
  return body;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every regular expression literal and `new RegExp` / `RegExp()` in src/, test files aside, as written. */
function patternsInSource(): Array<{ file: string; source: string; line: number }> {
  const found: Array<{ file: string; source: string; line: number }> = [];
  const files = fs
    .readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .sort();
  for (const relative of files) {
    const file = `src/${relative.split(path.sep).join('/')}`;
    const sourceFile = ts.createSourceFile(
      file,
      fs.readFileSync(path.join(ROOT, file), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node: ts.Node): void => {
      const isRegExp =
        node.kind === ts.SyntaxKind.RegularExpressionLiteral ||
        ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(sourceFile) === 'RegExp');
      if (isRegExp)
        found.push({
          file,
          source: node.getText(sourceFile),
          line: sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1,
        });
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
  return found;
}

/** A pattern of the table as the code compiles it. */
function compiled(entry: PatternEntry): RegExp {
  const literal = /^\/(.*)\/([a-z]*)$/s.exec(entry.source);
  if (!literal)
    throw new Error(
      `${entry.file} ${entry.name}: only a literal can be compiled here; a \`new RegExp\` that outside data reaches needs its own test`,
    );
  return new RegExp(literal[1]!, literal[2]);
}

/** Applies a pattern as the code does: every match of a global one, one match otherwise. */
function apply(pattern: RegExp, input: string): void {
  if (pattern.global) {
    for (const match of input.matchAll(pattern)) void match;
  } else {
    pattern.lastIndex = 0;
    pattern.exec(input);
  }
}

/** `fill` repeated to `size` characters between `head` and `tail`. */
function padded(size: number, fill: string, head = '', tail = ''): string {
  const room = size - head.length - tail.length;
  return head + fill.repeat(Math.ceil(room / fill.length)).slice(0, room) + tail;
}

/** Applied to every pattern outside data reaches: runs of one character or of a short pair, each also ended by a character few patterns accept. */
const COMMON: Array<[string, string, string?]> = [
  'a',
  'A',
  '0',
  ' ',
  '\n',
  '-',
  '_',
  '.',
  ':',
  '/',
  '{',
  '<',
  '"',
  'a-',
  'a.',
  '0.',
  '0 ',
  'A_',
  'a ',
].flatMap(
  (fill): Array<[string, string, string?]> => [
    [fill, ''],
    [fill, '', '!'],
  ],
);

const label = ([fill, head, tail]: [string, string, string?]) =>
  JSON.stringify(`${head.slice(0, 30)}${fill}${fill}…${tail ?? ''}`);

describe('security', () => {
  describe('every regular expression in src/ is in test/platform/linear-patterns.table.ts', () => {
    it('lists each one, as written, once per use', () => {
      const inSource = patternsInSource();
      const key = (p: { file: string; source: string }) => `${p.file} ${p.source}`;
      const listed = PATTERNS.map(key);
      const unlisted = inSource.filter((p) => {
        const at = listed.indexOf(key(p));
        if (at >= 0) listed.splice(at, 1);
        return at < 0;
      });
      expect(
        unlisted.map((p) => `${p.file}:${p.line} ${p.source}`),
        'A regular expression is not in test/platform/linear-patterns.table.ts: add it there (what reaches it, why it runs in linear time, inputs that would make it backtrack) and to the table "Patterns applied to request data" of docs/security.md',
      ).toEqual([]);
      expect(
        listed,
        'Entries of test/platform/linear-patterns.table.ts whose pattern is no longer in src/ as written: update or remove them (and their row in docs/security.md)',
      ).toEqual([]);
    });

    it('has a row in docs/security.md for each one outside data reaches, and for each scan', () => {
      const docs = fs.readFileSync(path.join(ROOT, 'docs/security.md'), 'utf8');
      const section = docs.slice(docs.indexOf('\n## Patterns applied to request data'));
      const rows = section
        .slice(0, section.indexOf('\n## ', 5) >= 0 ? section.indexOf('\n## ', 5) : undefined)
        .split('\n')
        .filter((line) => line.startsWith('| `src/'));
      const missing = [...PATTERNS.filter((e) => e.reaches !== null), ...SCANS].filter(
        (e) => !rows.some((row) => row.startsWith(`| \`${e.file}\``) && row.includes(e.name)),
      );
      expect(
        missing.map((e) => `${e.file} ${e.name}`),
        'Add a row to the table "Patterns applied to request data" of docs/security.md: file, name, what reaches it, what it is applied to, why it runs in linear time',
      ).toEqual([]);
    });
  });

  describe('each pattern that outside data reaches takes under 100 ms of CPU on 1 MiB adversarial inputs', () => {
    for (const entry of PATTERNS.filter((e) => e.reaches !== null)) {
      it(`${entry.file} ${entry.name} (${entry.reaches}): ${entry.source.length > 60 ? `${entry.source.slice(0, 60)}…` : entry.source}`, () => {
        const pattern = compiled(entry);
        const limit = cpuLimitMs();
        for (const attack of [...(entry.attacks ?? []), ...COMMON]) {
          // Growing sizes: a super-linear pattern fails at a small one rather than run for hours at 1 MiB.
          for (const size of [16 * 1024, 128 * 1024, MIB]) {
            const input = padded(size, ...attack);
            const { best, limit: bound } = bestCpuWithinLimit(() => apply(pattern, input), limit);
            expect(best, `${entry.name} on ${size} characters of ${label(attack)}`).toBeLessThan(bound);
          }
        }
      });
    }
  });

  describe('each scan that took the place of a pattern takes under 100 ms of CPU on 1 MiB adversarial inputs', () => {
    for (const scan of SCANS) {
      it(`${scan.file} ${scan.name} (${scan.reaches})`, () => {
        const limit = cpuLimitMs();
        for (const attack of [...(scan.attacks ?? []), ...COMMON]) {
          for (const size of [16 * 1024, 128 * 1024, MIB]) {
            const input = padded(size, ...attack);
            const { best, limit: bound } = bestCpuWithinLimit(() => scan.run(input), limit);
            expect(best, `${scan.name} on ${size} characters of ${label(attack)}`).toBeLessThan(bound);
          }
        }
      });
    }
  });

  describe('the patterns and formats of the request schemas (Ajv) take under 100 ms of CPU on 1 MiB adversarial inputs', () => {
    /** Every `pattern`, `patternProperties` key and `format` of the API's OpenAPI document (request and response schemas). */
    async function schemaPatterns(): Promise<{ patterns: Set<string>; formats: Set<string> }> {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const patterns = new Set<string>();
      const formats = new Set<string>();
      const walk = (node: unknown): void => {
        if (Array.isArray(node)) {
          for (const item of node) walk(item);
          return;
        }
        if (node === null || typeof node !== 'object') return;
        for (const [key, value] of Object.entries(node)) {
          if (key === 'pattern' && typeof value === 'string') patterns.add(value);
          if (key === 'format' && typeof value === 'string') formats.add(value);
          if (key === 'patternProperties' && value && typeof value === 'object')
            for (const p of Object.keys(value)) patterns.add(p);
          walk(value);
        }
      };
      walk(doc);
      return { patterns, formats };
    }

    // Ajv compiles a schema's pattern with the `u` flag, and checks every keyword of a field even
    // after one failed (allErrors): a maxLength does not keep a long value from the pattern.
    it('each pattern', async () => {
      const { patterns } = await schemaPatterns();
      expect(patterns.size).toBeGreaterThan(20);
      for (const source of patterns) {
        const pattern = new RegExp(source, 'u');
        const limit = cpuLimitMs();
        for (const attack of COMMON) {
          for (const size of [16 * 1024, 128 * 1024, MIB]) {
            const input = padded(size, ...attack);
            const { best, limit: bound } = bestCpuWithinLimit(() => pattern.test(input), limit);
            expect(best, `schema pattern ${source} on ${size} characters of ${label(attack)}`).toBeLessThan(bound);
          }
        }
      }
    });

    it("each format, as the server's validators check it", async () => {
      const { formats } = await schemaPatterns();
      expect([...formats]).toEqual(expect.arrayContaining(['uuid', 'date-time', 'email', 'uri']));
      const compile = buildValidatorCompiler([]);
      const attacks: Array<[string, string, string?]> = [
        ...COMMON,
        ['a.', 'a@'],
        ['a-', 'a@a.'],
        ['a', 'http://'],
        ['a:', 'a'],
        ['1', '2025-01-01T00:00:00.'],
        ['0', ''],
      ];
      for (const format of formats) {
        const validate = compile({
          schema: { type: 'string', format },
          method: 'POST',
          url: '/',
          httpPart: 'body',
        }) as (data: unknown) => boolean;
        const limit = cpuLimitMs();
        for (const attack of attacks) {
          for (const size of [16 * 1024, 128 * 1024, MIB]) {
            const input = padded(size, ...attack);
            const { best, limit: bound } = bestCpuWithinLimit(() => validate(input), limit);
            expect(best, `format ${format} on ${size} characters of ${label(attack)}`).toBeLessThan(bound);
          }
        }
      }
    });
  });

  describe('other routes: a request of 1 MiB shaped against their patterns is answered in under 100 ms of CPU', () => {
    let m: string;
    let config: string;
    beforeAll(async () => {
      m = await createMerchantAccount(t.deps);
      config = (
        await t.request({
          method: 'POST',
          url: '/vault-forward/configs',
          merchantAccountId: m,
          payload: { definition_id: 'custom', hosts: ['127.0.0.1'] },
        })
      ).json().id;
    });
    const mtls = (certificate: string) => ({
      method: 'POST' as const,
      url: `/vault-forward/configs/${config}/authentications`,
      merchantAccountId: m,
      payload: {
        kind: 'mtls',
        display_name: 'm',
        fields: [
          { key: 'certificate', value: certificate },
          { key: 'private_key', value: 'x' },
        ],
      },
    });
    const cases: Array<{ name: string; request: () => Parameters<TestApp['request']>[0]; status: number }> = [
      {
        name: "a JSON body cut short (the parser's message is read for its position)",
        request: () => ({
          method: 'POST',
          url: '/buyers',
          merchantAccountId: m,
          headers: { 'content-type': 'application/json' },
          payload: padded(MIB, 'a', '{"display_name":"'),
        }),
        status: 400,
      },
      {
        name: 'a bearer token of dotted segments (BEARER)',
        request: () => ({
          method: 'GET',
          url: '/buyers',
          token: null,
          headers: { authorization: padded(MIB, 'a.', 'Bearer ') },
        }),
        status: 401,
      },
      // The x-vault-forward-* headers are bounded by the schema (8,192 characters) before a pattern sees them.
      {
        name: "a target host ending in dots, at the header's longest (urlFormProblem)",
        request: () => ({
          method: 'POST',
          url: '/vault-forward',
          merchantAccountId: m,
          headers: { 'x-vault-forward-url': padded(8192, '.', 'https://a', 'x/') },
          payload: {},
        }),
        status: 400,
      },
      {
        name: "ids of x-vault-forward-payment-methods, at the header's longest (UUID)",
        request: () => ({
          method: 'POST',
          url: '/vault-forward',
          merchantAccountId: m,
          headers: {
            'x-vault-forward-url': 'http://127.0.0.1:9/',
            'x-vault-forward-payment-methods': padded(8192, '0-'),
          },
          payload: {},
        }),
        status: 400,
      },
      {
        name: 'a target header past its bound',
        request: () => ({
          method: 'POST',
          url: '/vault-forward',
          merchantAccountId: m,
          headers: { 'x-vault-forward-url': padded(MIB, '.', 'https://a', 'x/') },
          payload: {},
        }),
        status: 422,
      },
      {
        name: 'an mtls certificate field of BEGIN lines at its longest (pemBlocks)',
        request: () => mtls(padded(20_000, '-----BEGIN CERTIFICATE-----')),
        status: 400,
      },
      {
        name: 'an mtls certificate field of BEGIN lines past its length bound',
        request: () => mtls(padded(MIB - 1024, '-----BEGIN CERTIFICATE-----')),
        status: 422,
      },
    ];
    for (const c of cases) {
      it(`${c.name}: ${c.status}`, async () => {
        // Its schemas compile on the route's first request: that is no part of the measure.
        await t.request({ ...c.request(), payload: undefined, headers: {} });
        let best = { cpu: Infinity, status: 0, body: '' };
        let limit = cpuLimitMs();
        for (let attempt = 0; attempt < 3 && best.cpu >= limit; attempt++) {
          const request = c.request();
          let res: Awaited<ReturnType<TestApp['request']>> | undefined;
          const cpu = await cpuMs(async () => {
            res = await t.request(request);
          });
          if (cpu < best.cpu) best = { cpu, status: res!.statusCode, body: res!.body.slice(0, 300) };
          // As in bestCpuWithinLimit: after a try over the bound, the host's speed is measured again.
          if (best.cpu >= limit) limit = Math.max(limit, cpuLimitMs());
        }
        expect(best.status, best.body).toBe(c.status);
        expect(best.cpu, c.name).toBeLessThan(limit);
      });
    }
  });

  describe('POST /vault-forward: the placeholders of a 1 MiB adversarial body', () => {
    let m: string;
    let card: string;
    beforeAll(async () => {
      m = await createMerchantAccount(t.deps);
      const res = await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId: m,
        payload: { method: 'card', number: '4111111111111111', expiration_date: '07/30' },
      });
      card = res.json().id;
    });
    const forward = (body: string) =>
      t.request({
        method: 'POST',
        url: '/vault-forward',
        merchantAccountId: m,
        headers: {
          'content-type': 'application/json',
          'x-vault-forward-url': `${base}/`,
          'x-vault-forward-payment-methods': card,
        },
        payload: body,
      });

    // The issue's body (1,515 bytes froze the process for 3 s) first: on a super-linear pattern it
    // fails within seconds, and the larger bodies after it are skipped rather than hang the file.
    const cases: Array<{ name: string; size: number; body: (size: number) => string; status: number }> = [
      { name: '"{{" then spaces, 1,515 bytes', size: 1515, body: (s) => noteBody(s, '{{', ' '), status: 200 },
      { name: '"{{" then spaces', size: MIB, body: (s) => noteBody(s, '{{', ' '), status: 200 },
      {
        name: '"{{" then spaces, then an unknown placeholder',
        size: MIB,
        body: (s) => noteBody(s, '{{', ' ', '{{CARD_NUMBR_1}}'),
        status: 400,
      },
      {
        name: 'a placeholder padded with spaces inside its braces',
        size: MIB,
        body: (s) => noteBody(s, '{{ CARD_NUMBER_1', ' ', ' }}'),
        status: 200,
      },
      { name: '"{{ A" repeated', size: MIB, body: (s) => noteBody(s, '', '{{ A'), status: 200 },
      { name: '"{{" repeated', size: MIB, body: (s) => noteBody(s, '', '{{'), status: 200 },
      {
        name: '"{{ " then letters, one brace short',
        size: MIB,
        body: (s) => noteBody(s, '{{ ', 'A_', ' }'),
        status: 200,
      },
      { name: 'a placeholder repeated', size: MIB, body: (s) => noteBody(s, '', '{{CARD_NUMBER_1}}'), status: 200 },
    ];
    let slow: string | null = null;
    for (const c of cases) {
      it(`${c.name}: answered ${c.status} in under ${CPU_LIMIT_MS} ms of CPU (or 25 yardsticks on a slow host), and a concurrent GET /healthz is not held up`, async (ctx) => {
        if (slow) ctx.skip(`skipped: the smaller body "${slow}" was already too slow`);
        await forward(JSON.stringify({ note: 'warm-up {{CARD_NUMBER_1}}' }));
        const body = c.body(c.size);
        // The least of up to three tries: a collection or a neighbour on a shared machine can land in any one.
        let best = { cpu: Infinity, healthMs: Infinity, status: 0 };
        let limit = cpuLimitMs();
        for (let attempt = 0; attempt < 3 && best.cpu >= limit; attempt++) {
          let healthMs = 0;
          let status = 0;
          const started = performance.now();
          const cpu = await cpuMs(async () => {
            const health = t.app.inject({ method: 'GET', url: '/healthz' }).then((res) => {
              healthMs = performance.now() - started;
              return res.statusCode;
            });
            const [res, healthStatus] = await Promise.all([forward(body), health]);
            status = res.statusCode;
            expect(healthStatus).toBe(200);
          });
          if (cpu < best.cpu) best = { cpu, healthMs, status };
          if (best.cpu >= limit) limit = Math.max(limit, cpuLimitMs());
        }
        if (best.cpu >= limit) slow = c.name;
        expect(best.status).toBe(c.status);
        expect(best.cpu, `CPU of the forward of ${c.size} bytes (and of GET /healthz)`).toBeLessThan(limit);
        // Wall time on a shared test machine is noisy; a blocked event loop holds it for seconds.
        expect(best.healthMs, 'GET /healthz sent alongside').toBeLessThan(1000);
      });
    }
  });
});
