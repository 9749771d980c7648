import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { ROOT } from '../helpers/spawn-server.ts';

/**
 * The served OpenAPI document is one that tools can trust (docs/api-reference.md): Redocly's
 * linter finds no error in it, and a client generated from it with openapi-typescript compiles and
 * types a call the way a client developer writes it.
 */

const run = promisify(execFile);
let t: TestApp;
let dir: string;
let documentPath: string;
beforeAll(async () => {
  t = await buildTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-'));
  documentPath = path.join(dir, 'openapi.json');
  const res = await t.request({ method: 'GET', url: '/openapi.json', token: null });
  expect(res.statusCode).toBe(200);
  fs.writeFileSync(documentPath, res.body);
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

/**
 * The warnings docs/api-reference.md justifies ("Lint"): operations whose error answers are pages
 * or redirects, not the `Error` body, and `required` inside `if`/`not` (a test of presence).
 */
const JUSTIFIED_WARNINGS = new Set(['operation-4xx-response', 'no-required-schema-properties-undefined']);

describe('happy', () => {
  it('passes Redocly lint (redocly.yaml, the recommended rules) with no error and no unjustified warning', async () => {
    const cli = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const { stdout } = await run(
      process.execPath,
      [cli, 'lint', documentPath, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json'],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: os.tmpdir(),
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          NO_COLOR: '1',
        },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { stdout: string; stderr: string }) => ({ stdout: error.stdout, stderr: error.stderr }));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: LintProblem[];
    };
    const errors = report.problems.filter((problem) => problem.severity === 'error');
    expect(errors.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual(
      [],
    );
    expect(report.totals.errors).toBe(0);
    const unjustified = report.problems.filter((problem) => !JUSTIFIED_WARNINGS.has(problem.ruleId));
    expect(
      unjustified.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`),
    ).toEqual([]);
  });

  it('generates a TypeScript client with openapi-typescript that compiles and types listTransactions and createPaymentService', async () => {
    const types = astToString(await openapiTS(fs.readFileSync(documentPath, 'utf8')));
    fs.writeFileSync(path.join(dir, 'api.d.ts'), types);
    fs.writeFileSync(
      path.join(dir, 'usage.ts'),
      `import type { components, operations, paths } from './api';

type ListTransactions = operations['listTransactions'];
type TransactionsQuery = NonNullable<ListTransactions['parameters']['query']>;
type TransactionsPage = ListTransactions['responses'][200]['content']['application/json'];
type ApiError = components['responses']['NotFound']['content']['application/json'];

/** A typed call, as a client developer writes one. */
export async function listTransactions(base: string, token: string, query: TransactionsQuery = {}): Promise<TransactionsPage> {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) search.set(key, String(value));
  const res = await fetch(\`\${base}/transactions?\${search}\`, { headers: { authorization: \`Bearer \${token}\` } });
  if (!res.ok) throw new Error(((await res.json()) as ApiError).message);
  return (await res.json()) as TransactionsPage;
}

// Every parameter is optional: limit defaults to 20 on the server.
export const firstPage = (base: string, token: string) => listTransactions(base, token);
export const bigPage = (base: string, token: string) => listTransactions(base, token, { limit: 100 });
export const ids = (page: TransactionsPage): string[] => page.items.map((item) => item.id);
export const next = (page: TransactionsPage): string | null => page.next_cursor;
// @ts-expect-error limit is a number
export const wrong: TransactionsQuery = { limit: 'twenty' };

// POST /payment-services creates (201), PUT /payment-services/{id} updates (200).
type Create = paths['/payment-services']['post'];
export const created = (answer: Create['responses'][201]['content']['application/json']): string => answer.id;
export const createId: operations['createPaymentService'] = {} as Create;
type Update = paths['/payment-services/{payment_service_id}']['put'];
export const updateId: operations['updatePaymentService'] = {} as Update;
`,
    );
    // A project of its own: strict, the DOM's fetch, no @types from anywhere.
    const compilerOptions = {
      noEmit: true,
      strict: true,
      target: 'es2022',
      module: 'esnext',
      moduleResolution: 'bundler',
      lib: ['es2022', 'dom'],
      types: [],
    };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['usage.ts'] }));
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], {
      cwd: dir,
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });
});
