#!/usr/bin/env node
// npm run docs:config: rewrites the configuration table of docs/configuration.md from the settings
// each group declares (src/config.ts gathers them). src/config-table.test.ts fails while it is stale.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './build.mjs';

const tsx = await import('tsx/esm/api');
tsx.register();
const { withConfigurationTable } = await import('../src/config.ts');
const file = path.join(ROOT, 'docs', 'configuration.md');
const before = fs.readFileSync(file, 'utf8');
const after = withConfigurationTable(before);
if (after !== before) fs.writeFileSync(file, after);
process.stdout.write(`${after === before ? 'up to date' : 'updated'}: docs/configuration.md\n`);
