/**
 * A trace of the SQL the server sends under concurrency, and its replay through any driver
 * (bench/driver.ts). Recording: the real server, loaded with bench/record-sql.mjs, answers
 * concurrent stored-card authorizations over HTTP, and every statement its pool sends is kept in
 * the order sent: the grouped (unnest) statements and the single ones, as they came. Replay: the
 * whole trace, round after round, each round with fresh ids for the ids the recorded requests
 * made; statements are sent in the recorded order, at most `inFlight` at a time (the server's
 * pool), and one that names an id waits for the earlier statements naming it (an answer waits for
 * its transaction's insert), as the server's did.
 */
import fs from 'node:fs';
import { uuidv7 } from '../src/lib/ids.ts';

/** A value as recorded, with the ids to renew marked: a string becomes literal parts and id numbers. */
type Template =
  | { kind: 'as-is'; value: unknown }
  | { kind: 'text'; parts: Array<string | number> }
  | { kind: 'array'; items: Template[] };

export interface TracedStatement {
  text: string;
  values: Template[];
  /** Earlier statements (indexes) that named one of its ids: it is sent once they answered. */
  after: number[];
}

export interface Trace {
  statements: TracedStatement[];
  /** Authorizations the trace holds (answered 201 while recording). */
  authorizations: number;
  /** Distinct ids renewed in each round. */
  ids: number;
  /** Statements with array parameters (grouped forms), and their mean number of members. */
  grouped: { statements: number; members: number };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Values as bench/record-sql.mjs wrote them: tagged dates and bytes back to Date and Buffer. */
function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (value && typeof value === 'object') {
    const tagged = value as { $date?: string; $bytes?: string };
    if (typeof tagged.$date === 'string') return new Date(tagged.$date);
    if (typeof tagged.$bytes === 'string') return Buffer.from(tagged.$bytes, 'base64');
  }
  return value;
}

/** Elements of a PostgreSQL array literal as `arrayLiteral` (src/db/group-commit-sql.ts) writes it: `{"a","b\\"c",NULL}`. */
export function arrayLiteralLength(text: string): number {
  if (text === '{}') return 0;
  let count = 1;
  let quoted = false;
  for (let i = 1; i < text.length - 1; i++) {
    const c = text[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) count++;
  }
  return count;
}

/**
 * A grouped statement's members (src/db/group-commit-sql.ts, `groupedText`): the length of the
 * first parameter it unnests, sent as an array, an array literal or a JSON array of one entry per
 * member. Null for a statement that unnests nothing.
 */
export function groupMembers(text: string, values: readonly unknown[]): number | null {
  const unnested = /(?:unnest\(|jsonb_array_elements\((?:case when .*? then )?)\$(\d+)::/.exec(text);
  if (!unnested) return null;
  const value = values[Number(unnested[1]) - 1];
  if (Array.isArray(value)) return value.length;
  if (typeof value !== 'string') return null;
  if (value.startsWith('{')) return arrayLiteralLength(value);
  if (value.startsWith('[')) return (JSON.parse(value) as unknown[]).length;
  return null;
}

/** The trace bench/record-sql.mjs wrote to `file`, recorded between `startedAt` and `endedAt` (ms). */
export function loadTrace(file: string, startedAt: number, endedAt: number, authorizations: number): Trace {
  const recorded = (JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{ text: string; values: unknown[] }>).map(
    ({ text, values }) => ({ text, values: values.map(revive) }),
  );
  const sizes = recorded.map(({ text, values }) => groupMembers(text, values)).filter((n): n is number => n !== null);
  const members = sizes.reduce((sum, n) => sum + n, 0);
  return {
    ...compile(recorded, startedAt, endedAt),
    authorizations,
    grouped: { statements: sizes.length, members: members / Math.max(sizes.length, 1) },
  };
}

/** Marks the ids made between `startedAt` and `endedAt` (UUIDv7 of that time) and links each statement to the earlier ones naming its ids. */
function compile(
  recorded: Array<{ text: string; values: unknown[] }>,
  startedAt: number,
  endedAt: number,
): Pick<Trace, 'statements' | 'ids'> {
  const numbers = new Map<string, number>();
  const made = (id: string) => {
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    return ms >= startedAt - 1 && ms <= endedAt + 1;
  };
  const template = (value: unknown, named: Set<number>): Template => {
    if (Array.isArray(value)) return { kind: 'array', items: value.map((item) => template(item, named)) };
    if (typeof value !== 'string') return { kind: 'as-is', value };
    const parts: Array<string | number> = [];
    let last = 0;
    for (const match of value.matchAll(UUID)) {
      if (!made(match[0])) continue;
      let n = numbers.get(match[0]);
      if (n === undefined) numbers.set(match[0], (n = numbers.size));
      named.add(n);
      parts.push(value.slice(last, match.index), n);
      last = match.index + match[0].length;
    }
    if (parts.length === 0) return { kind: 'as-is', value };
    parts.push(value.slice(last));
    return { kind: 'text', parts };
  };
  const lastNaming = new Map<number, number>();
  const statements = recorded.map(({ text, values }, index) => {
    const named = new Set<number>();
    const compiled = values.map((value) => template(value, named));
    const after = new Set<number>();
    for (const n of named) {
      const earlier = lastNaming.get(n);
      if (earlier !== undefined) after.add(earlier);
      lastNaming.set(n, index);
    }
    return { text, values: compiled, after: [...after] };
  });
  return { statements, ids: numbers.size };
}

function fill(template: Template, ids: string[]): unknown {
  if (template.kind === 'as-is') return template.value;
  if (template.kind === 'array') return template.items.map((item) => fill(item, ids));
  let out = '';
  for (const part of template.parts) out += typeof part === 'number' ? ids[part]! : part;
  return out;
}

/** What the replay needs of a driver: one statement with its values (prepared, named by the driver). */
export interface Driver {
  name: string;
  query(text: string, values: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

interface Round {
  ids: string[];
  done: Uint8Array;
  left: number;
}

/** Round `r` of the replay: its fresh ids and which of its statements answered (forgotten once all did). */
function rounds(trace: Trace): { get(r: number): Round; answered(r: number, i: number): void } {
  const total = trace.statements.length;
  const open = new Map<number, Round>();
  const get = (r: number) => {
    let state = open.get(r);
    if (!state)
      open.set(
        r,
        (state = { ids: Array.from({ length: trace.ids }, () => uuidv7()), done: new Uint8Array(total), left: total }),
      );
    return state;
  };
  return {
    get,
    answered(r, i) {
      const state = get(r);
      state.done[i] = 1;
      if (--state.left === 0) open.delete(r);
    },
  };
}

/** Replays `trace` round after round until `seconds` have passed; the statements answered. */
export async function replayTrace(
  trace: Trace,
  driver: Driver,
  inFlight: number,
  seconds: number,
): Promise<{ statements: number; seconds: number }> {
  const total = trace.statements.length;
  const round = rounds(trace);
  const began = performance.now();
  const end = began + seconds * 1000;
  let issued = 0;
  let answered = 0;
  let active = 0;
  let stopping = false;
  return new Promise((resolve, reject) => {
    const pump = () => {
      while (!stopping && active < inFlight) {
        if (performance.now() >= end) {
          stopping = true;
          break;
        }
        const r = Math.floor(issued / total);
        const i = issued % total;
        const state = round.get(r);
        const statement = trace.statements[i]!;
        // In order, as the server sent them: a statement waiting for its id's earlier ones holds the rest.
        if (!statement.after.every((d) => state.done[d] === 1)) break;
        issued++;
        active++;
        driver
          .query(
            statement.text,
            statement.values.map((v) => fill(v, state.ids)),
          )
          .then(
            () => {
              round.answered(r, i);
              active--;
              answered++;
              pump();
            },
            (error: Error) => {
              stopping = true;
              reject(
                new Error(
                  `${driver.name}: statement ${i} of the trace failed: ${error.message}\n${statement.text.slice(0, 300)}`,
                ),
              );
            },
          );
      }
      if (stopping && active === 0) resolve({ statements: answered, seconds: (performance.now() - began) / 1000 });
    };
    pump();
  });
}
