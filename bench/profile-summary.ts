/**
 * The top of a V8 CPU profile (`node --cpu-prof`, e.g. the server's under BENCH_SERVER_NODE_ARGS):
 * `node --import tsx bench/profile-summary.ts FILE.cpuprofile [top=25] [PACKAGE,PACKAGE…] [--busiest=SECONDS | --last=SECONDS]`.
 * Prints the functions with the most self time, then the same time by package (node_modules) or
 * file (ours, Node's own). With packages (e.g. `pg,pg-protocol,pg-pool,pg-types,postgres-date`),
 * also the time of every sample with a frame of one of them on its stack (what they cost, the
 * system calls and garbage they run into included) and its top functions. A sample's time is the
 * gap to the next sample, as DevTools counts it. `--busiest=10`
 * keeps only the samples of the 10 s with the least idle time (a scenario's run, without the server's
 * start and the seeding); shares are then also given of the busy (not idle) time.
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time in µs per node id, of the samples from index `from` to `to` (exclusive). */
function selfTimes(profile: Profile, from = 0, to = profile.samples.length): Map<number, number> {
  const times = new Map<number, number>();
  for (let i = from; i < to; i++) {
    const id = profile.samples[i]!;
    times.set(id, (times.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  return times;
}

/** The samples [from, to) spanning `seconds` with the least idle time (two pointers over the samples). */
function busiestWindow(profile: Profile, seconds: number): [number, number] {
  const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const span = seconds * 1e6;
  let best: [number, number] = [0, profile.samples.length];
  let bestBusy = -1;
  let from = 0;
  let length = 0;
  let busy = 0;
  for (let to = 0; to < profile.samples.length; to++) {
    const us = profile.timeDeltas[to + 1] ?? 0;
    length += us;
    if (!idleIds.has(profile.samples[to]!)) busy += us;
    while (length > span && from < to) {
      const out = profile.timeDeltas[from + 1] ?? 0;
      length -= out;
      if (!idleIds.has(profile.samples[from]!)) busy -= out;
      from++;
    }
    if (busy > bestBusy) [bestBusy, best] = [busy, [from, to + 1]];
  }
  return best;
}

/** The samples [from, end) spanning the last `seconds` of the profile (a scenario that ran last, at a rate below the start-up's load). */
function lastWindow(profile: Profile, seconds: number): [number, number] {
  const span = seconds * 1e6;
  let length = 0;
  let from = profile.samples.length;
  while (from > 0 && length < span) length += profile.timeDeltas[--from + 1] ?? 0;
  return [from, profile.samples.length];
}

/** A frame's file: from its package on in node_modules (`pg/lib/result.js`), from `src/` in ours, else its URL (`node:internal/...`, `wasm://...`). */
function fileOf(url: string): string {
  if (!url.startsWith('file://')) return url;
  const file = decodeURIComponent(new URL(url).pathname);
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) return file.slice(modules + '/node_modules/'.length);
  const src = file.lastIndexOf('/src/');
  return src >= 0 ? file.slice(src + 1) : path.relative(process.cwd(), file) || file;
}

/** The package (`fastify`, `@fastify/ajv-compiler`) or, outside node_modules, the file; V8's own entries such as `(garbage collector)` by name. */
function owner({ functionName, url }: ProfileNode['callFrame']): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const file = fileOf(url);
  if (!url.includes('/node_modules/')) return file;
  const [scope, name] = file.split('/');
  return scope?.startsWith('@') ? `${scope}/${name}` : (scope ?? file);
}

function top(times: Map<string, number>, count: number, total: number): string[] {
  return [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([name, us]) =>
        `${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`,
    );
}

function summarize(
  profile: Profile,
  count: number,
  [from, to]: [number, number],
  window?: number,
  last = false,
): string {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const owners = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfTimes(profile, from, to)) {
    const frame = byNode.get(id)!.callFrame;
    const where = frame.url === '' ? '' : ` ${fileOf(frame.url)}:${frame.lineNumber + 1}`;
    const name = `${frame.functionName || '(anonymous)'}${where}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    owners.set(owner(frame), (owners.get(owner(frame)) ?? 0) + us);
    total += us;
  }
  const idle = owners.get('(idle)') ?? 0;
  // With a window, shares are of the busy time: idle is left out of the lists.
  const shareOf = window ? total - idle : total;
  if (window) [functions, owners].forEach((times) => times.delete('(idle)'));
  return [
    `${(total / 1000).toFixed(0)} ms sampled${window ? ` (the ${last ? 'last' : 'busiest'} ${window} s)` : ''}, of which ${(idle / 1000).toFixed(0)} ms idle (${((idle / total) * 100).toFixed(1)} %)`,
    '',
    `Top ${count} functions by self time${window ? ', share of the busy time' : ''}:`,
    ...top(functions, count, shareOf),
    '',
    `Top ${count} packages and files by self time:`,
    ...top(owners, count, shareOf),
  ].join('\n');
}

/** The samples [from, to) with a frame of `packages` on their stack: their time against the busy (not idle) time, and their top functions. */
function under(profile: Profile, packages: Set<string>, count: number, [from, to]: [number, number]): string {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inside = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      if (packages.has(owner(byNode.get(at)!.callFrame))) return true;
    return false;
  };
  const functions = new Map<string, number>();
  let busy = 0;
  let total = 0;
  for (const [id, us] of selfTimes(profile, from, to)) {
    const frame = byNode.get(id)!.callFrame;
    if (owner(frame) === '(idle)') continue;
    busy += us;
    if (!inside(id)) continue;
    total += us;
    const name = `${frame.functionName || '(anonymous)'}${frame.url === '' ? '' : ` ${fileOf(frame.url)}`}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  return [
    '',
    `Under ${[...packages].join(', ')}: ${(total / 1000).toFixed(0)} ms, ${((total / busy) * 100).toFixed(1)} % of the busy time; top ${count} functions there by self time (% of the busy time):`,
    ...top(functions, count, busy),
  ].join('\n');
}

const args = process.argv.slice(2);
const windowArg = args.find((a) => a.startsWith('--busiest=') || a.startsWith('--last='));
const [file, countArg = '25', packagesArg] = args.filter((a) => a !== windowArg);
const last = windowArg?.startsWith('--last=') ?? false;
const window = windowArg === undefined ? undefined : Number(windowArg.slice(windowArg.indexOf('=') + 1));
if (!file || !/^\d+$/.test(countArg) || (window !== undefined && !(window > 0))) {
  process.stderr.write(
    'usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [top=25] [PACKAGE,PACKAGE…] [--busiest=SECONDS | --last=SECONDS]\n',
  );
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const samples: [number, number] = window
  ? last
    ? lastWindow(profile, window)
    : busiestWindow(profile, window)
  : [0, profile.samples.length];
process.stdout.write(`${summarize(profile, Number(countArg), samples, window, last)}\n`);
if (packagesArg)
  process.stdout.write(`${under(profile, new Set(packagesArg.split(',')), Number(countArg), samples)}\n`);
