#!/usr/bin/env node
// `npm run build`: compiles src/ to JavaScript in dist/ (tsc with tsconfig.build.json) and copies the
// files the code reads at run time beside it (migrations, the payment page's script, style sheet and
// texts). `npm start` runs it with --if-stale first: it builds only when dist/ is missing or older
// than src/. The server and the `svc` command then run dist/ with plain node (bin/svc.mjs).
//   node bin/build.mjs [--if-stale] [--out-dir DIR]
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

/** The newest modification time of the sources (files and folders: a deleted file changes its folder's). */
function newestSource(root) {
  const entries = fs.readdirSync(path.join(root, 'src'), { recursive: true }).map((entry) => path.join('src', entry));
  let newest = fs.statSync(path.join(root, 'src')).mtimeMs;
  for (const entry of [...entries, ...CONFIGS])
    newest = Math.max(newest, fs.statSync(path.join(root, entry), { throwIfNoEntry: false })?.mtimeMs ?? 0);
  return newest;
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
  // A process starting between the two renames finds no build and runs the sources (bin/svc.mjs).
  const previous = `${target}.previous-${process.pid}`;
  if (fs.existsSync(target)) fs.renameSync(target, previous);
  fs.renameSync(building, target);
  fs.rmSync(previous, { recursive: true, force: true });
}

if (process.argv[1] && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href) {
  const { values } = parseArgs({
    options: { 'if-stale': { type: 'boolean', default: false }, 'out-dir': { type: 'string' } },
  });
  const outDir = values['out-dir'] ?? path.join(ROOT, 'dist');
  if (values['if-stale'] && outDir === path.join(ROOT, 'dist') && distState() === 'fresh') {
    process.stdout.write('dist/ is up to date with src/\n');
  } else {
    try {
      build(ROOT, outDir);
      process.stdout.write(`built ${path.relative(process.cwd(), path.resolve(outDir)) || '.'} from src/\n`);
    } catch (error) {
      process.stderr.write(`build: ${error.message}\n`);
      process.exitCode = 1;
    }
  }
}
