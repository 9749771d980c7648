/**
 * Loaded into the server process by bench/driver.ts (`node --import bench/record-sql.mjs`): records
 * every statement the server's `pg` clients send while recording is on. SIGUSR2 turns it on; the
 * next SIGUSR2 writes what was recorded to BENCH_RECORD_SQL_FILE (JSON; dates and bytes tagged)
 * and turns it off. Plain JavaScript: it runs before the server registers its TypeScript loader.
 */
import fs from 'node:fs';
import pg from 'pg';

const file = process.env.BENCH_RECORD_SQL_FILE;
/** The change feed's own statements on its connection: not the requests'. */
const FEED = /^\s*(listen|unlisten|select 1)\b/i;
let recording = null;

const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  if (recording) {
    const [config, values] = args;
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string' && !FEED.test(text))
      recording.push({ text, values: (typeof config === 'string' ? values : (config.values ?? values)) ?? [] });
  }
  return original.apply(this, args);
};

function plain(value) {
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Date) return { $date: value.toISOString() };
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  if (typeof value === 'bigint') return String(value);
  return value;
}

if (file) {
  process.on('SIGUSR2', () => {
    if (!recording) {
      recording = [];
      return;
    }
    const statements = recording.map(({ text, values }) => ({ text, values: values.map(plain) }));
    recording = null;
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(statements));
    fs.renameSync(`${file}.tmp`, file);
  });
}
