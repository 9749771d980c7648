import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmStartNodeArgs } from '../../bench/server.ts';
import { ROOT, startServer, type RunningServer } from '../helpers/spawn-server.ts';

/**
 * `npm start` and the container image run compiled JavaScript (bin/build.mjs: tsc into dist/), not
 * TypeScript through tsx. The production layout (bin/, dist/, package.json and node_modules; no src/)
 * is built in a temporary folder and started with a module hook that refuses tsx and every .ts file:
 * the server must start, apply its migrations and serve the payment page's files from dist/.
 */
const install = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dist-'));
const refuseHook = path.join(install, 'refuse-typescript.mjs');
let server: RunningServer | undefined;

const HOOKS = `
export async function resolve(specifier, context, next) {
  if (specifier === 'tsx' || specifier.startsWith('tsx/')) throw new Error('refused: tsx imported by ' + context.parentURL);
  const resolved = await next(specifier, context);
  if (/\\.[cm]?ts$/.test(new URL(resolved.url).pathname)) throw new Error('refused: TypeScript source ' + resolved.url);
  return resolved;
}`;

/** Runs node with `args` to its end (asynchronously: a build takes a while, and the test runner must hear from this process meanwhile). */
function runNode(args: string[]): Promise<{ status: number | null; output: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT });
  let output = '';
  child.stdout.on('data', (d) => (output += d.toString()));
  child.stderr.on('data', (d) => (output += d.toString()));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, output })));
}

beforeAll(async () => {
  const built = await runNode([path.join(ROOT, 'bin', 'build.mjs'), '--out-dir', path.join(install, 'dist')]);
  expect(built.status, built.output).toBe(0);
  fs.mkdirSync(path.join(install, 'bin'));
  for (const file of ['svc.mjs', 'build.mjs'])
    fs.copyFileSync(path.join(ROOT, 'bin', file), path.join(install, 'bin', file));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(install, 'package.json'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(install, 'node_modules'));
  fs.writeFileSync(path.join(install, 'refuse-typescript-hooks.mjs'), HOOKS);
  fs.writeFileSync(
    refuseHook,
    "import { register } from 'node:module';\nregister('./refuse-typescript-hooks.mjs', import.meta.url);\n",
  );
}, 600_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  fs.rmSync(install, { recursive: true, force: true });
});

describe('happy', () => {
  it('starts from dist/ with plain node: migrations applied, page files served, no tsx and no .ts file loaded', async () => {
    // The hook does refuse: tsx, and a TypeScript file, fail to load under it.
    for (const code of [
      "await import('tsx/esm/api')",
      `await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'src', 'lib', 'ids.ts')).href)})`,
    ]) {
      const refused = await runNode(['--import', pathToFileURL(refuseHook).href, '--input-type=module', '-e', code]);
      expect(refused.status).not.toBe(0);
      expect(refused.output).toContain('refused:');
    }
    expect(fs.existsSync(path.join(install, 'dist', 'cli', 'main.js'))).toBe(true);
    expect(fs.existsSync(path.join(install, 'src'))).toBe(false);
    server = await startServer({ DATA_DIR: path.join(install, 'data') }, 120_000, {
      svc: path.join(install, 'bin', 'svc.mjs'),
      nodeArgs: ['--import', pathToFileURL(refuseHook).href, ...npmStartNodeArgs(ROOT)],
    });
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    // Ready = the database answers, migrated from dist/migrations at start.
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    const script = await fetch(`${server.baseUrl}/pay-assets/page.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toBe(
      fs.readFileSync(path.join(ROOT, 'src', 'modules', 'payment-links', 'page', 'assets', 'page.js'), 'utf8'),
    );
    expect((await fetch(`${server.baseUrl}/openapi.json`)).status).toBe(200);
    // The dashboard console, built by the same command into dist/console/.
    const dashboard = await fetch(`${server.baseUrl}/dashboard/`);
    expect(dashboard.status).toBe(200);
    const asset = /\/dashboard\/assets\/index-[\w-]+\.js/.exec(await dashboard.text())?.[0];
    expect(asset).toBeDefined();
    expect((await fetch(`${server.baseUrl}${asset}`)).headers.get('cache-control')).toBe(
      'public, max-age=31536000, immutable',
    );
    expect(server.output()).not.toContain('refused:');
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('npm start builds dist/ first when it is missing or stale; tsx is a development dependency only', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.scripts.prestart).toBe('node bin/build.mjs --if-stale');
    expect(pkg.scripts.start).toMatch(/^node( -\S+)* bin\/svc\.mjs serve$/);
    expect(pkg.dependencies).not.toHaveProperty('tsx');
    expect(pkg.devDependencies).toHaveProperty('tsx');
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    expect(lock.packages['node_modules/tsx']!.dev).toBe(true);
  });

  it("tells a current build from a stale or missing one by the sources' times", async () => {
    const { distState } = (await import(pathToFileURL(path.join(ROOT, 'bin', 'build.mjs')).href)) as {
      distState(root: string): string;
    };
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-state-'));
    try {
      const at = (file: string, seconds: number) => fs.utimesSync(path.join(root, file), seconds, seconds);
      fs.mkdirSync(path.join(root, 'src', 'db'), { recursive: true });
      fs.writeFileSync(path.join(root, 'src', 'db', 'a.ts'), '');
      for (const dir of ['src', 'src/db']) at(dir, 1_000);
      at('src/db/a.ts', 1_000);
      expect(distState(root)).toBe('missing');
      fs.mkdirSync(path.join(root, 'dist'));
      fs.writeFileSync(path.join(root, 'dist', '.build-stamp'), '');
      at('dist/.build-stamp', 2_000);
      expect(distState(root)).toBe('fresh');
      at('src/db/a.ts', 3_000);
      expect(distState(root)).toBe('stale');
      at('src/db/a.ts', 1_000);
      fs.writeFileSync(path.join(root, 'tsconfig.build.json'), '{}');
      expect(distState(root)).toBe('stale');
      // The container image: dist/ and no sources.
      fs.rmSync(path.join(root, 'src'), { recursive: true });
      expect(distState(root)).toBe('fresh');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("tells the console's build (dist/console/) current, stale or missing by console/'s times, on its own", async () => {
    const { consoleState } = (await import(pathToFileURL(path.join(ROOT, 'bin', 'build.mjs')).href)) as {
      consoleState(root: string): string;
    };
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-console-state-'));
    try {
      const at = (file: string, seconds: number) => fs.utimesSync(path.join(root, file), seconds, seconds);
      fs.mkdirSync(path.join(root, 'console', 'src'), { recursive: true });
      fs.writeFileSync(path.join(root, 'console', 'src', 'app.tsx'), '');
      for (const entry of ['console', 'console/src', 'console/src/app.tsx']) at(entry, 1_000);
      expect(consoleState(root)).toBe('missing');
      fs.mkdirSync(path.join(root, 'dist', 'console'), { recursive: true });
      fs.writeFileSync(path.join(root, 'dist', 'console', '.build-stamp'), '');
      at('dist/console/.build-stamp', 2_000);
      expect(consoleState(root)).toBe('fresh');
      at('console/src/app.tsx', 3_000);
      expect(consoleState(root)).toBe('stale');
      at('console/src/app.tsx', 1_000);
      // New versions of Vite, Preact or uPlot.
      fs.writeFileSync(path.join(root, 'package-lock.json'), '{}');
      expect(consoleState(root)).toBe('stale');
      at('package-lock.json', 1_000);
      expect(consoleState(root)).toBe('fresh');
      fs.rmSync(path.join(root, 'console'), { recursive: true });
      expect(consoleState(root)).toBe('fresh');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
