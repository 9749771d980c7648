/**
 * Where an authorization's WAL goes: `BENCH_DATABASE_URL=… npm run bench:wal` (PostgreSQL on this
 * host only: it reads the server's pg_wal with `pg_waldump`, so run it as a user who can).
 *
 * Starts this checkout's server on a throw-away schema, makes a mock-card payment service and a
 * stored card, sends BENCH_RATE_WARMUP (3) seconds of stored-card authorizations at BENCH_RATE
 * (200/s) over BENCH_RATE_CONNECTIONS (32) sockets, a `VACUUM (ANALYZE)` when autovacuum is off,
 * then BENCH_SECONDS (10) more, between two WAL positions. `pg_waldump` reads the records in
 * between; each record is put on the relation of its first block (through pg_class's
 * relfilenode for this schema's tables and indexes), or on its resource manager when it has no
 * block (commits, running-xacts). Records of relations outside this schema (other sessions on the
 * same server) are left out; those without a block cannot be told apart, so run it on a quiet
 * server. Prints the total, then the server's own writes apart from the built-in simulator's
 * storage (`simulator_calls`, and the commits of the transactions that wrote only it: the mock
 * connector's memory of the calls it received, which a real provider keeps at its side), then the
 * table of bytes and records per authorization, largest first.
 * BENCH_KEEP_SCHEMA=1 keeps the schema afterwards (to look at the rows).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { positive } from './env.ts';
import { paced } from './paced.ts';
import { log, npmStartNodeArgs, postgresSchema, startServer, stopServer } from './server.ts';
import { storedCardAuthorization } from './transactions.ts';

interface Line {
  rmgr: string;
  total: number;
  /** The transaction id (0 for records outside one: running-xacts, checkpoints). */
  tx: number;
  rel: string | null;
  fpi: boolean;
  desc: string;
}

/**
 * The built-in simulators' own storage (modules/simulator-calls/): what the simulated provider
 * remembers of the calls it received, as a real provider keeps at its side. A server talking to a
 * real provider writes none of it, so the table shows it apart from the server's own writes.
 */
export const SIMULATOR_RELATIONS: ReadonlySet<string> = new Set(['simulator_calls', 'simulator_calls_pkey']);

/**
 * Which transactions wrote only the simulator's relations: their commit records are the
 * simulator's too. `records` are (transaction id, relation name or null) pairs in WAL order.
 */
export function simulatorOnlyTransactions(records: Iterable<{ tx: number; rel: string | null }>): Set<number> {
  const simulator = new Set<number>();
  const other = new Set<number>();
  for (const { tx, rel } of records) {
    if (tx === 0 || rel === null) continue;
    if (SIMULATOR_RELATIONS.has(rel)) simulator.add(tx);
    else other.add(tx);
  }
  for (const tx of other) simulator.delete(tx);
  return simulator;
}

/** One pg_waldump line: `rmgr: Heap len (rec/tot): 54/ 254, tx: …, desc: INSERT …, blkref #0: rel 1663/5/24576 blk 0 …`. */
export function parseWaldumpLine(line: string): Line | null {
  const head = /^rmgr: (\S+)\s+len \(rec\/tot\):\s*\d+\/\s*(\d+),/.exec(line);
  if (!head) return null;
  const rel = /blkref #0: rel \d+\/\d+\/(\d+)/.exec(line);
  const desc = /desc: (\S+)/.exec(line);
  const tx = /, tx:\s*(\d+),/.exec(line);
  return {
    rmgr: head[1]!,
    total: Number(head[2]),
    tx: tx ? Number(tx[1]) : 0,
    rel: rel ? rel[1]! : null,
    fpi: line.includes('FPW'),
    desc: desc ? desc[1]! : '',
  };
}

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is required (PostgreSQL on this host)');
  const rate = positive('BENCH_RATE', 200);
  const connections = positive('BENCH_RATE_CONNECTIONS', 32);
  const warmup = positive('BENCH_RATE_WARMUP', 3);
  const seconds = positive('BENCH_SECONDS', 10);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const schema = await postgresSchema(url);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wal-'));
  const server = await startServer(root, dataDir, schema.databaseUrl, npmStartNodeArgs(root));
  const client = new pg.Client({ connectionString: schema.databaseUrl });
  try {
    const authorization = await storedCardAuthorization(server, dataDir);
    const load = {
      baseUrl: server.baseUrl,
      method: 'POST',
      path: '/transactions',
      headers: authorization.headers,
      body: authorization.body,
      rate,
      connections,
    };
    await paced({ ...load, seconds: warmup });
    await schema.vacuumIfNoAutovacuum();
    await client.connect();
    const walDir = (await client.query<{ d: string }>("SELECT current_setting('data_directory') || '/pg_wal' AS d"))
      .rows[0]!.d;
    const lsn = async () =>
      (await client.query<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0]!.l;
    const start = await lsn();
    const result = await paced({ ...load, seconds });
    // Let the server's background work (jobs, syncs) of these answers reach the WAL too.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const end = await lsn();
    const answered = result.requests.total;
    const names = new Map<string, string>();
    const rels = await client.query<{ node: string; name: string }>(
      `SELECT c.relfilenode::text AS node, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname IN ($1, 'pg_toast') AND c.relfilenode <> 0`,
      [schema.name],
    );
    for (const row of rels.rows) names.set(row.node, row.name);
    const bin = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    const dump = execFileSync(path.join(bin, 'pg_waldump'), ['-p', walDir, '-s', start, '-e', end], {
      maxBuffer: 1 << 30,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const totals = new Map<
      string,
      { bytes: number; records: number; fpi: number; kinds: Map<string, number>; kindBytes: Map<string, number> }
    >();
    const lines: { line: Line; rel: string | null }[] = [];
    for (const raw of dump.split('\n')) {
      const line = parseWaldumpLine(raw);
      if (!line) continue;
      if (line.rel === null) lines.push({ line, rel: null });
      else {
        const name = names.get(line.rel);
        if (name !== undefined) lines.push({ line, rel: name }); // else another schema's relation
      }
    }
    const simulatorTxs = simulatorOnlyTransactions(lines.map(({ line, rel }) => ({ tx: line.tx, rel })));
    let all = 0;
    let simulated = 0;
    for (const { line, rel } of lines) {
      const simulatorCommit = rel === null && line.rmgr === 'Transaction' && simulatorTxs.has(line.tx);
      const key = rel ?? (simulatorCommit ? `(${line.rmgr}, the simulator's)` : `(${line.rmgr})`);
      const entry = totals.get(key) ?? {
        bytes: 0,
        records: 0,
        fpi: 0,
        kinds: new Map<string, number>(),
        kindBytes: new Map<string, number>(),
      };
      entry.bytes += line.total;
      entry.records += 1;
      if (line.fpi) entry.fpi += 1;
      const kind = `${line.rmgr}:${line.desc}`;
      entry.kinds.set(kind, (entry.kinds.get(kind) ?? 0) + 1);
      entry.kindBytes.set(kind, (entry.kindBytes.get(kind) ?? 0) + line.total);
      totals.set(key, entry);
      all += line.total;
      if (simulatorCommit || (rel !== null && SIMULATOR_RELATIONS.has(rel))) simulated += line.total;
    }
    const per = (n: number) => (n / answered).toFixed(n / answered < 10 ? 2 : 0);
    console.log(
      `${answered} authorizations (${rate}/s offered for ${seconds} s, ${connections} connections): WAL ${per(all)} bytes per authorization (${start} → ${end})`,
    );
    console.log(
      `the server's own: ${per(all - simulated)} bytes per authorization; the built-in simulator's storage (the simulated provider's memory of calls, which a real provider keeps at its side): ${per(simulated)} bytes`,
    );
    console.log(
      '| relation (or record kind) | bytes / authorization | records / authorization | full-page images | record kinds (per authorization × mean size) |',
    );
    console.log('|---|---:|---:|---:|---|');
    for (const [key, entry] of [...totals].sort((a, b) => b[1].bytes - a[1].bytes)) {
      const kinds = [...entry.kinds]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([kind, count]) => `${kind} ${per(count)} × ${Math.round((entry.kindBytes.get(kind) ?? 0) / count)} B`)
        .join(', ');
      console.log(`| ${key} | ${per(entry.bytes)} | ${per(entry.records)} | ${entry.fpi} | ${kinds} |`);
    }
  } finally {
    await client.end().catch(() => {});
    await stopServer(server.child);
    if (process.env.BENCH_KEEP_SCHEMA) log(`schema ${schema.name} kept (BENCH_KEEP_SCHEMA)`);
    else await schema.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((error: unknown) => {
    log(String(error instanceof Error ? (error.stack ?? error.message) : error));
    process.exit(1);
  });
}
