import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Deps } from '../context.ts';
import { appendAnchors, readAnchors } from '../modules/audit-logs/audit-anchors.ts';
import { chainHeadAnchors, verifyAuditChains } from '../modules/audit-logs/audit-chain.service.ts';

export const AUDIT_HELP = `Usage: svc audit <verify|anchor> [options]

  svc audit verify [--merchant-account ID] [--anchors FILE] [--no-seal]
      links the entries committed so far into their chains (as the servers do every second; not
      with --no-seal, e.g. on a read-only replica), then recomputes the audit log's hash chain of
      every merchant account (or of one), in order, and checks each chain's head row, every anchor
      of FILE (default AUDIT_ANCHOR_FILE, when set and present) and that every entry is linked.
      Prints one line per chain; for a broken chain, the first broken link: its seq, the entry's
      id and what is wrong (content changed, entries missing, reordered, prev_hash changed,
      unlinked, head or anchor mismatch, unsealed). Exits 1 when a chain is broken
  svc audit anchor [--out FILE]
      links the entries committed so far, then appends every chain head to FILE (default
      AUDIT_ANCHOR_FILE) now, as the daily anchor-audit-chains job does

With the embedded database, stop the server first: PGlite allows one process at a time.`;

async function verify(deps: Deps, args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'merchant-account': { type: 'string' },
      anchors: { type: 'string' },
      'no-seal': { type: 'boolean', default: false },
    },
  });
  const configured = deps.config.auditAnchorFile;
  const file = values.anchors ?? (configured && fs.existsSync(configured) ? configured : null);
  const anchors = file ? readAnchors(file) : undefined;
  if (!values['no-seal']) await deps.auditSealer.sealNow();
  const started = performance.now();
  const reports = await verifyAuditChains(deps.db, { merchantAccountId: values['merchant-account'], anchors });
  const seconds = (performance.now() - started) / 1000;
  let broken = 0;
  for (const r of reports) {
    const anchored = file ? `, ${r.anchorsChecked} anchor(s)` : '';
    if (!r.broken) {
      out(`${r.merchantAccountId}: ok, ${r.entries} entries${anchored}, head seq ${r.last.seq} ${r.last.hash}`);
      continue;
    }
    broken++;
    const b = r.broken;
    out(`${r.merchantAccountId}: BROKEN at seq ${b.seq}${b.id ? ` (entry ${b.id})` : ''}: ${b.kind}: ${b.detail}`);
  }
  const entries = reports.reduce((n, r) => n + r.entries, 0);
  out(
    `${reports.length} chain(s), ${entries} entries in ${seconds.toFixed(2)} s (${Math.round(entries / Math.max(seconds, 1e-6))}/s)${file ? `, anchors from ${file}` : ', no anchor file'}: ${broken ? `${broken} broken` : 'all intact'}`,
  );
  return broken ? 1 : 0;
}

/** `svc audit ...` with the process's dependencies; returns the exit code. */
export async function auditCommand(deps: Deps, args: string[], out: (line: string) => void): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'verify') return verify(deps, rest, out);
  if (action === 'anchor') {
    const { values } = parseArgs({ args: rest, options: { out: { type: 'string' } } });
    const file = values.out ?? deps.config.auditAnchorFile;
    if (!file) throw new Error('svc audit anchor needs --out FILE or AUDIT_ANCHOR_FILE');
    await deps.auditSealer.sealNow();
    const anchors = await chainHeadAnchors(deps.db, new Date());
    appendAnchors(file, anchors);
    out(`appended ${anchors.length} chain head(s) to ${file}`);
    return 0;
  }
  out(AUDIT_HELP);
  return 2;
}
