/**
 * Where a scenario's CPU went, per request: the server process, the PostgreSQL processes on this
 * machine (none with PGlite, which runs inside the server) and the machine's idle time. Read from
 * /proc, so Linux only; elsewhere the figures are null and the table shows a dash.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** CPU of the server, of the local PostgreSQL processes and idle, in ms per request; null where unknown. */
export interface CpuFigures {
  server: number | null;
  postgres: number | null;
  idle: number | null;
}

/** A reading, in ticks: PostgreSQL's per process (a backend that exits takes its ticks with it). */
export interface CpuReading {
  server: number | null;
  postgres: Map<number, number> | null;
  idle: number | null;
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`, 100 where it cannot be read). */
export const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of one process (fields 14 and 15 of /proc/PID/stat; the name may hold spaces). */
function processTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function read(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function postgresTicks(): Map<number, number> | null {
  const ticks = new Map<number, number>();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return null;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (stat?.includes('(postgres)')) ticks.set(Number(entry), processTicks(stat));
  }
  return ticks.size > 0 ? ticks : null;
}

/** What the PostgreSQL processes alive at `after` spent since `before` (new ones: all of theirs). */
function postgresSpent(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null;
  let spent = 0;
  for (const [pid, ticks] of after) spent += ticks - (before.get(pid) ?? 0);
  return spent;
}

/** The ticks of all CPUs by state (the first line of /proc/stat); null where it cannot be read. */
function allCpuFields(): number[] | null {
  const line = read('/proc/stat')?.split('\n')[0];
  if (!line?.startsWith('cpu ')) return null;
  return line.trim().split(/\s+/).slice(1).map(Number);
}

/** Idle and I/O wait of all CPUs. */
function idleTicks(): number | null {
  const fields = allCpuFields();
  return fields ? (fields[3] ?? 0) + (fields[4] ?? 0) : null;
}

/** Busy ticks of all CPUs, summed: every state but idle and I/O wait. */
export function hostBusyTicks(): number | null {
  const fields = allCpuFields();
  return fields ? fields.reduce((sum, n) => sum + n, 0) - (fields[3] ?? 0) - (fields[4] ?? 0) : null;
}

/** utime + stime of process `pid` so far, in ticks; null once it is gone. */
export function processTicksOf(pid: number): number | null {
  const stat = read(`/proc/${pid}/stat`);
  return stat ? processTicks(stat) : null;
}

/** `postgres`: whether the server uses a PostgreSQL server (else one running here for others is left out). */
export function cpuTicks(serverPid: number | undefined, postgres: boolean): CpuReading {
  return {
    server: serverPid === undefined ? null : processTicksOf(serverPid),
    postgres: postgres ? postgresTicks() : null,
    idle: idleTicks(),
  };
}

/**
 * Milliseconds per request between two readings. PostgreSQL backends that exited meanwhile are not
 * counted (what they spent in the window is lost with them; keep the measured connections open
 * until the second reading).
 */
export function perRequest(before: CpuReading, after: CpuReading, requests: number): CpuFigures {
  const ms = (ticks: number | null) =>
    ticks === null || requests === 0 ? null : (ticks * 1000) / TICKS_PER_SECOND / requests;
  const delta = (a: number | null, b: number | null) => (a === null || b === null ? null : b - a);
  return {
    server: ms(delta(before.server, after.server)),
    postgres: ms(postgresSpent(before.postgres, after.postgres)),
    idle: ms(delta(before.idle, after.idle)),
  };
}
