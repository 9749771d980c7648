#!/usr/bin/env node
// Entry point of the `svc` command. Runs the compiled JavaScript of dist/ (npm run build; npm start
// builds it first when missing or stale) with plain node. In a development checkout whose dist/ is
// missing or older than src/, it runs the TypeScript sources through tsx, a development dependency:
// a production install (npm ci --omit=dev, the container image) has no tsx and runs dist/ only.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { distState, ROOT } from './build.mjs';

async function loadCli() {
  const state = distState();
  if (state === 'fresh') return import(pathToFileURL(path.join(ROOT, 'dist', 'cli', 'main.js')).href);
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write(
      `svc: dist/ is ${state === 'missing' ? 'missing' : 'older than src/'}, and tsx (a development dependency) is not installed to run the sources: run npm run build\n`,
    );
    process.exit(1);
  }
  tsx.register();
  return import('../src/cli/main.ts');
}

const { main } = await loadCli();
process.exitCode = await main(process.argv.slice(2));
