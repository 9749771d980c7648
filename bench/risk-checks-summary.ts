/**
 * The figures of the risk checks' row of `npm run bench` (bench/risk-checks.ts): the server CPU each
 * check adds to a card authorization, and whether the three together stay under issue 55's aim
 * (0.2 ms of server CPU per authorization for blocklist and velocity checks; the card-testing guard
 * counted with them).
 */

/** CPU per authorization, µs, of each part, and of the whole process over the run. */
export interface RiskChecksFigures {
  database: string;
  authorizations: number;
  perSecond: number;
  entries: number;
  /** The sync period, seconds, and what a sync does there. */
  syncSeconds: number;
  soleWriter: boolean;
  blocklistUs: number;
  velocityUs: number;
  guardUs: number;
  syncsUs: number;
  /** user + system of the process over the run, per authorization: the parts and what lies between them. */
  processUs: number;
}

export const RISK_CHECKS_AIM_US = 200;

const us = (n: number) => n.toFixed(1);

/** The markdown table printed under the run's: one line per part, the total and the aim. */
export function riskChecksTable(f: RiskChecksFigures, aimUs = RISK_CHECKS_AIM_US): string {
  const parts = f.blocklistUs + f.velocityUs + f.guardUs + f.syncsUs;
  const total = Math.max(parts, f.processUs);
  const sync = f.soleWriter
    ? `every ${f.syncSeconds} s each account's counts journalled, a row per minute, nothing read back (sole writer)`
    : `written and everyone's changes read every ${f.syncSeconds} s`;
  return [
    `Risk checks per card authorization on ${f.database}: ${f.authorizations} authorizations at ${f.perSecond} a second, in process (no HTTP)`,
    '',
    '| Part | CPU µs per authorization |',
    '|---|---:|',
    `| blocklist check (${f.entries.toLocaleString('en-US')} entries) | ${us(f.blocklistUs)} |`,
    `| velocity check (3 keys' MACs, 3 conditions counted, the attempt recorded) | ${us(f.velocityUs)} |`,
    `| card-testing guard (2 sources: MACs, counts; declines recorded) | ${us(f.guardUs)} |`,
    `| the counters' syncs (${sync}) | ${us(f.syncsUs)} |`,
    `| sum of the parts | ${us(parts)} |`,
    `| the process over the run (the parts and what lies between them: GC, timers) | ${us(f.processUs)} |`,
    '',
    `Aim (issue 55): under ${aimUs} µs per authorization: ${total < aimUs ? 'met' : 'NOT met'} (${us(total)} µs, ${((total / aimUs) * 100).toFixed(0)} % of it).`,
  ].join('\n');
}
