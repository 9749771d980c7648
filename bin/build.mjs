#!/usr/bin/env node
// `npm run build`: compiles src/ to JavaScript in dist/ (tsc with tsconfig.build.json) and copies the
// files the code reads at run time beside it (migrations, the payment page's script, style sheet and
// texts), then builds the dashboard console (console/, Vite) into dist/console/. `npm start` runs it
// with --if-stale first: each part is built only when missing or older than its sources. The server
// and the `svc` command then run dist/ with plain node (bin/svc.mjs).
//   node bin/build.mjs [--if-stale] [--out-dir DIR] [--console]    (--console: the console only)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Written last into a finished build; its time is when the build read the sources. */
const STAMP = '.build-stamp';
/** Besides src/, what the output depends on. */
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];
/** Besides console/, what the console's build depends on (the versions of Vite, Preact and uPlot). */
const CONSOLE_CONFIGS = ['package-lock.json'];

/** The newest modification time of `dir`'s files and folders (a deleted file changes its folder's) and of `extra`. */
function newestSource(root, dir = 'src', extra = CONFIGS) {
  const entries = fs.readdirSync(path.join(root, dir), { recursive: true }).map((entry) => path.join(dir, entry));
  let newest = fs.statSync(path.join(root, dir)).mtimeMs;
  for (const entry of [...entries, ...extra])
    newest = Math.max(newest, fs.statSync(path.join(root, entry), { throwIfNoEntry: false })?.mtimeMs ?? 0);
  return newest;
}

/** The same states for the console's build, dist/console/, against console/ (docs/dashboard.md). */
export function consoleState(root = ROOT, outDir = path.join(root, 'dist', 'console')) {
  const stamp = fs.statSync(path.join(outDir, STAMP), { throwIfNoEntry: false });
  if (!stamp) return 'missing';
  if (!fs.existsSync(path.join(root, 'console'))) return 'fresh';
  return newestSource(root, 'console', CONSOLE_CONFIGS) <= stamp.mtimeMs ? 'fresh' : 'stale';
}

/**
 * Builds the console with Vite into `outDir` (default dist/console): into a fresh folder first,
 * moved into place once complete, so the server never reads a half-written build.
 */
export async function buildConsole(root = ROOT, outDir = path.join(root, 'dist', 'console')) {
  let vite;
  try {
    vite = await import(pathToFileURL(createRequire(path.join(root, 'package.json')).resolve('vite')).href);
  } catch {
    throw new Error(
      'Vite is not installed: run npm install (development dependencies included), then npm run build:console',
    );
  }
  const started = new Date();
  const target = path.resolve(outDir);
  const building = `${target}.building-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  // A production build whatever NODE_ENV the caller has (vitest's global setup passes `test`, which
  // would bring Preact's debugging code into the bundle and leave it unminified).
  process.env.NODE_ENV = 'production';
  await vite.build({
    configFile: path.join(root, 'console', 'vite.config.ts'),
    mode: 'production',
    logLevel: 'warn',
    build: { outDir: building, emptyOutDir: true },
  });
  const stamp = path.join(building, STAMP);
  fs.writeFileSync(stamp, `built from console/ as it was at ${started.toISOString()}\n`);
  fs.utimesSync(stamp, started, started);
  const previous = `${target}.previous-${process.pid}`;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (fs.existsSync(target)) fs.renameSync(target, previous);
  fs.renameSync(building, target);
  fs.rmSync(previous, { recursive: true, force: true });
}

/**
 * `fresh`: dist/ was built from the sources as they are now, or there are no sources (the container
 * image ships dist/ alone); `stale`: a source changed since; `missing`: no finished build.
 */
export function distState(root = ROOT) {
  const stamp = fs.statSync(path.join(root, 'dist', STAMP), { throwIfNoEntry: false });
  if (!stamp) return 'missing';
  if (!fs.existsSync(path.join(root, 'src'))) return 'fresh';
  return newestSource(root) <= stamp.mtimeMs ? 'fresh' : 'stale';
}

/** Builds into `outDir` (default dist/): into a fresh folder first, moved into place once complete. */
export function build(root = ROOT, outDir = path.join(root, 'dist')) {
  let tsc;
  try {
    tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    throw new Error(
      'TypeScript is not installed: run npm install (development dependencies included), then npm run build',
    );
  }
  // The stamp carries the time before tsc reads anything: a source saved during the build makes it stale.
  const started = new Date();
  const target = path.resolve(outDir);
  const building = `${target}.building-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', building],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) {
    fs.rmSync(building, { recursive: true, force: true });
    throw new Error(`tsc failed (exit ${result.status ?? result.signal}); run npm run typecheck for the errors`);
  }
  const src = path.join(root, 'src');
  for (const entry of fs.readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || /\.(ts|md)$/.test(entry.name)) continue;
    const from = path.join(entry.parentPath, entry.name);
    const to = path.join(building, path.relative(src, from));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
  }
  const stamp = path.join(building, STAMP);
  fs.writeFileSync(stamp, `built from src/ as it was at ${started.toISOString()}\n`);
  fs.utimesSync(stamp, started, started);
  // The console's build is its own (buildConsole): it moves into the new dist/ as it is.
  const consoleBuild = path.join(target, 'console');
  if (fs.existsSync(consoleBuild)) fs.renameSync(consoleBuild, path.join(building, 'console'));
  // A process starting between the two renames finds no build and runs the sources (bin/svc.mjs).
  const previous = `${target}.previous-${process.pid}`;
  if (fs.existsSync(target)) fs.renameSync(target, previous);
  fs.renameSync(building, target);
  fs.rmSync(previous, { recursive: true, force: true });
}

/** The server's part, then the console's; with `ifStale`, each only when it is not fresh. */
async function main({ ifStale, outDir, consoleOnly }) {
  const defaultOut = outDir === path.join(ROOT, 'dist');
  if (!consoleOnly) {
    if (ifStale && defaultOut && distState() === 'fresh') process.stdout.write('dist/ is up to date with src/\n');
    else {
      build(ROOT, outDir);
      process.stdout.write(`built ${path.relative(process.cwd(), path.resolve(outDir)) || '.'} from src/\n`);
    }
  }
  const consoleOut = path.join(outDir, 'console');
  if (!fs.existsSync(path.join(ROOT, 'console'))) return;
  if (ifStale && consoleState(ROOT, consoleOut) === 'fresh') {
    process.stdout.write('dist/console/ is up to date with console/\n');
    return;
  }
  await buildConsole(ROOT, consoleOut);
  process.stdout.write(
    `built ${path.relative(process.cwd(), consoleOut)} from console/ (the dashboard at /dashboard/)\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href) {
  const { values } = parseArgs({
    options: {
      'if-stale': { type: 'boolean', default: false },
      'out-dir': { type: 'string' },
      console: { type: 'boolean', default: false },
    },
  });
  try {
    await main({
      ifStale: values['if-stale'],
      outDir: path.resolve(values['out-dir'] ?? path.join(ROOT, 'dist')),
      consoleOnly: values.console,
    });
  } catch (error) {
    process.stderr.write(`build: ${error.message}\n`);
    process.exitCode = 1;
  }
}
