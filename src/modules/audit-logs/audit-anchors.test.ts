import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tamperLinks, readLinks } from '../../../test/helpers/audit-chain.ts';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { auditCommand } from '../../cli/audit.ts';
import { RECURRING } from '../../jobs/index.ts';
import { ANCHOR_LOG_MESSAGE, anchorAuditChains } from '../../jobs/anchor-audit-chains.job.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { readAnchors } from './audit-anchors.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-anchors-'));
const anchorFile = path.join(dir, 'audit-anchors.jsonl');
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ AUDIT_ANCHOR_FILE: anchorFile });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function auditedAccount(renames: number): Promise<string> {
  const id = `anchor-${uuidv7().slice(-12)}`;
  expect(
    (await t.request({ method: 'POST', url: '/merchant-accounts', payload: { id, display_name: 'A' } })).statusCode,
  ).toBe(201);
  for (let i = 0; i < renames; i++)
    await t.request({ method: 'PUT', url: `/merchant-accounts/${id}`, payload: { display_name: `n${i}` } });
  return id;
}

async function runAnchorJob(): Promise<Array<{ obj: object; msg: string | undefined }>> {
  const lines: Array<{ obj: object; msg: string | undefined }> = [];
  const log = { info: (obj: object, msg?: string) => void lines.push({ obj, msg }), warn: () => {}, error: () => {} };
  await anchorAuditChains.handle({}, { deps: t.deps, jobId: 'test', attempt: 1, log });
  return lines;
}

async function cli(...args: string[]): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await auditCommand(t.deps, args, (line) => void out.push(line));
  return { code, out };
}

describe('happy', () => {
  it('runs daily and writes each chain head to the log stream and to AUDIT_ANCHOR_FILE', async () => {
    expect(RECURRING.find((r) => r.job === anchorAuditChains)?.everyMs).toBe(24 * 3600 * 1000);
    const account = await auditedAccount(2);
    const lines = await runAnchorJob();
    const head = (await readLinks(t.deps.db, account)).find((l) => l.seq === 3)!.hash;
    expect(lines).toContainEqual({
      obj: { audit_anchor: expect.objectContaining({ merchant_account_id: account, seq: 3, hash: head }) },
      msg: ANCHOR_LOG_MESSAGE,
    });
    expect(readAnchors(anchorFile).get(account)).toEqual([
      { merchant_account_id: account, seq: 3, hash: head, anchored_at: expect.any(String) },
    ]);
    expect(fs.statSync(anchorFile).mode & 0o777).toBe(0o600);
    // A second run appends: the earlier lines stay.
    await t.request({ method: 'PUT', url: `/merchant-accounts/${account}`, payload: { display_name: 'later' } });
    await runAnchorJob();
    expect(
      readAnchors(anchorFile)
        .get(account)
        ?.map((a) => a.seq),
    ).toEqual([3, 4]);
  });

  it('svc audit verify checks every chain against the anchor file, and exits 0 when all are intact', async () => {
    const account = await auditedAccount(1);
    await runAnchorJob();
    const { code, out } = await cli('verify');
    expect(code).toBe(0);
    expect(out).toContainEqual(
      expect.stringMatching(new RegExp(`^${account}: ok, 2 entries, 1 anchor\\(s\\), head seq 2 [0-9a-f]{64}$`)),
    );
    expect(out.at(-1)).toMatch(/chain\(s\), \d+ entries in .* anchors from .*audit-anchors\.jsonl: all intact$/);
    expect((await cli('verify', '--merchant-account', account)).out).toHaveLength(2);
  });
});

describe('errors', () => {
  it('svc audit verify names the first broken link and exits 1; an anchor finds a rewritten tail', async () => {
    const account = await auditedAccount(3);
    await runAnchorJob();
    // The newest entry and its link removed (by someone who can switch the append-only triggers off).
    const links = await readLinks(t.deps.db, account);
    await sql`ALTER TABLE audit_logs DISABLE TRIGGER audit_logs_append_only`.execute(t.deps.db);
    await sql`DELETE FROM audit_logs WHERE merchant_account_id = ${account} AND id = ${links[3]!.id}`.execute(
      t.deps.db,
    );
    await sql`ALTER TABLE audit_logs ENABLE TRIGGER audit_logs_append_only`.execute(t.deps.db);
    await tamperLinks(t.deps.db, account, (all) => all.filter((l) => l.seq !== 4));
    // The head row rewritten too: only the anchor still knows seq 4.
    await sql`UPDATE audit_chain_heads SET seq = 3, hash = decode(${links[2]!.hash}, 'hex')
      WHERE merchant_account_id = ${account}`.execute(t.deps.db);
    // A named anchor file must exist; an empty one anchors nothing, and the rest still checks out.
    await expect(cli('verify', '--merchant-account', account, '--anchors', path.join(dir, 'none'))).rejects.toThrow(
      'ENOENT',
    );
    fs.writeFileSync(path.join(dir, 'none'), '');
    expect((await cli('verify', '--merchant-account', account, '--anchors', path.join(dir, 'none'))).code).toBe(0);
    const { code, out } = await cli('verify', '--merchant-account', account);
    expect(code).toBe(1);
    expect(out[0]).toMatch(
      new RegExp(`^${account}: BROKEN at seq 4: missing: the anchor of .* holds seq 4, the chain ends at seq 3`),
    );
    expect(out.at(-1)).toMatch(/1 broken$/);
  });

  it('refuses an anchor file with a line that is not an anchor, naming the line', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(bad, '{"merchant_account_id":"m","seq":1,"hash":"00","anchored_at":"x"}\n');
    expect(() => readAnchors(bad)).toThrow(`${bad} line 1 is not an audit chain anchor`);
  });
});
