import { CompiledQuery, sql } from 'kysely';
import { withoutRequest, addDbTime } from '../observability/request-timing.ts';
import type { Db } from './executor.ts';
import {
  arrayLiteral,
  groupedArrays,
  groupedText,
  jsonArrays,
  jsonRows,
  readShape,
  writeShape,
  type WriteShape,
} from './group-commit-sql.ts';
import { GUARD_FAILED, GuardFailed, combine, guarded, setGroupRunner, type GroupKey } from './write-batch.ts';

/**
 * Group commit across requests (PostgreSQL only). Concurrent requests running the same writes (the
 * same SQL texts with their own parameters: the insert of a transaction before its connector call,
 * the guarded statement recording the answer) are written by one statement: every parameter
 * becomes an array of the members' values (src/db/group-commit-sql.ts), so PostgreSQL plans,
 * executes and commits once for all of them, and each request is answered only once that
 * statement has committed its own rows.
 *
 * Members wait at most until the next turn of the event loop (`setImmediate`); when `maxInFlight`
 * grouped statements (writes; reads count apart) are already running, new members wait for one of
 * them to finish and then go together: under load groups grow by themselves, at low load a request runs alone with no delay.
 * A guarded group checks that its update touched one row per member; if any statement of a group
 * fails (a guard, a constraint, a deadlock), nothing of it was written and every member runs alone,
 * as it would have without grouping, so one bad row never fails its neighbours.
 *
 * Members are told apart in the returned rows by their GroupKey (a primary key: two members with
 * the same key never share a statement).
 */
type Kind = 'writes' | 'guarded' | 'reads';

export type { GroupKey };

interface Member {
  queries: CompiledQuery<unknown>[];
  key: GroupKey;
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

interface Batch {
  kind: Kind;
  /** The kind and the member texts: what the members share, and the key of their plan. */
  key: string;
  members: Member[];
}

export interface GroupCommitStats {
  /** Grouped statements that committed. */
  statements: number;
  /** Members written by them. */
  members: number;
  /** Groups that failed and whose members then ran alone. */
  fallbacks: number;
}

const MAX_SHAPES = 200;

/** A grouped statement's text and how to fill its parameters. */
interface Plan {
  sql: string;
  shapes: Array<{ shape: WriteShape; types: string[]; json: boolean[] }>;
  /** Its last parameter is the number of members (the updates' rows are counted against it). */
  counted: boolean;
}

export class GroupCommit {
  private readonly pending = new Map<string, Batch>();
  private readonly shapes = new Map<string, Promise<{ shape: WriteShape; types: string[] } | null>>();
  private readonly plans = new Map<string, Promise<Plan | null>>();
  private readonly inFlight = { reads: 0, writes: 0 };
  private scheduled = false;
  private probes = 0;
  readonly stats: GroupCommitStats = { statements: 0, members: 0, fallbacks: 0 };

  constructor(
    private readonly db: Db,
    private readonly options: { maxInFlight: number; maxMembers: number },
  ) {}

  /** Runs `queries` (as `runWrites` or `runGuardedWrites` would) with other requests' identical ones. */
  async run<R>(kind: Kind, queries: CompiledQuery<unknown>[], key: GroupKey): Promise<R[]> {
    const started = performance.now();
    try {
      return (await new Promise<unknown[]>((resolve, reject) => {
        const batchKey = `${kind}\u0000${queries.map((q) => q.sql).join('\u0000')}`;
        let batch = this.pending.get(batchKey);
        if (!batch) this.pending.set(batchKey, (batch = { kind, key: batchKey, members: [] }));
        batch.members.push({ queries, key, resolve, reject });
        this.schedule();
      })) as R[];
    } finally {
      // The request waited this long for its rows: its Server-Timing counts it as one statement.
      addDbTime(performance.now() - started);
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Outside any request: the statements' durations are added to each member by `run`.
    setImmediate(() => withoutRequest(() => this.flush()));
  }

  private flush(): void {
    this.scheduled = false;
    for (const [batchKey, batch] of this.pending) {
      // Reads have slots of their own: a read never waits behind writes that wait for a row lock
      // (held, perhaps, by a transaction that is itself waiting for that read).
      const lane = batch.kind === 'reads' ? 'reads' : 'writes';
      while (batch.members.length > 0 && this.inFlight[lane] < this.options.maxInFlight) {
        const chunk =
          batch.kind === 'reads' ? batch.members.splice(0, this.options.maxMembers) : this.take(batch.members);
        this.inFlight[lane]++;
        void this.execute(batch, chunk).finally(() => {
          this.inFlight[lane]--;
          if (this.pending.size > 0) this.schedule();
        });
      }
      if (batch.members.length === 0) this.pending.delete(batchKey);
    }
  }

  /** Up to `maxMembers` members with distinct keys, removed from `members`. */
  private take(members: Member[]): Member[] {
    const chunk: Member[] = [];
    const keys = new Set<unknown>();
    for (let i = 0; i < members.length && chunk.length < this.options.maxMembers; ) {
      const member = members[i]!;
      if (keys.has(member.key.value)) {
        i++;
        continue;
      }
      keys.add(member.key.value);
      chunk.push(member);
      members.splice(i, 1);
    }
    return chunk;
  }

  private async execute(batch: Batch, chunk: Member[]): Promise<void> {
    const { kind } = batch;
    if (chunk.length === 1) return this.alone(kind, chunk[0]!);
    let rows: Record<string, unknown>[];
    try {
      const statement = await this.statement(batch, chunk);
      if (!statement) {
        await Promise.all(chunk.map((member) => this.alone(kind, member)));
        return;
      }
      rows = (await this.db.executeQuery<Record<string, unknown>>(statement)).rows;
    } catch {
      // Nothing of the group was written: each member runs alone and gets its own answer.
      this.stats.fallbacks++;
      await Promise.all(chunk.map((member) => this.alone(kind, member)));
      return;
    }
    this.stats.statements++;
    this.stats.members += chunk.length;
    if (kind === 'reads') {
      const byMember: Record<string, unknown>[][] = chunk.map(() => []);
      for (const row of rows) {
        const { svc_member: member, ...rest } = row;
        byMember[Number(member) - 1]?.push(rest);
      }
      chunk.forEach((member, i) => member.resolve(byMember[i]!));
      return;
    }
    const byKey = new Map<unknown, unknown[]>();
    for (const row of rows) {
      const value = row[chunk[0]!.key.column];
      const list = byKey.get(value);
      if (list) list.push(row);
      else byKey.set(value, [row]);
    }
    for (const member of chunk) member.resolve(byKey.get(member.key.value) ?? []);
  }

  /** One member's statement, exactly as without grouping. */
  private async alone(kind: Kind, member: Member): Promise<void> {
    try {
      if (kind === 'reads') {
        member.resolve((await this.db.executeQuery(member.queries[0]!)).rows);
        return;
      }
      if (kind === 'writes') {
        member.resolve((await this.db.executeQuery(combine(member.queries))).rows);
        return;
      }
      member.resolve((await this.db.executeQuery(guarded(member.queries))).rows);
    } catch (error) {
      member.reject((error as { code?: string } | null)?.code === GUARD_FAILED ? new GuardFailed() : error);
    }
  }

  /** The grouped statement for `chunk`, or null when one of its texts cannot be grouped. */
  private async statement(batch: Batch, chunk: Member[]): Promise<CompiledQuery<Record<string, unknown>> | null> {
    const plan = await bounded(this.plans, batch.key, () =>
      this.build(
        batch.kind,
        chunk[0]!.queries.map((q) => q.sql),
      ),
    );
    if (!plan) return null;
    const parameters: unknown[] = [];
    for (let q = 0; q < plan.shapes.length; q++) {
      const { shape, types, json } = plan.shapes[q]!;
      const arrays = groupedArrays(
        shape,
        chunk.map((m) => m.queries[q]!.parameters),
      );
      arrays.forEach((values, i) =>
        parameters.push(
          json[i] ? jsonRows(values) : (arrayLiteral(values, types[i]!) ?? arrayParameter(values, types[i]!)),
        ),
      );
      // The count the statement checks its JSON arrays against (groupedText).
      if (json.some(Boolean)) parameters.push(chunk.length * shape.rows);
    }
    if (parameters.some((p) => p === null)) return null;
    if (plan.counted) parameters.push(chunk.length);
    return CompiledQuery.raw(plan.sql, parameters);
  }

  /**
   * The text of the grouped statement for these member texts (the same for any number of members:
   * their values travel in arrays), built once per process (`plans`); null when they cannot be
   * grouped.
   */
  private async build(kind: Kind, texts: string[]): Promise<Plan | null> {
    const found = await Promise.all(texts.map((text) => this.shape(text, kind === 'reads')));
    if (found.some((s) => s === null)) return null;
    const shapes = (found as Array<{ shape: WriteShape; types: string[] }>).map((s) => ({
      ...s,
      json: jsonArrays(s.shape, s.types),
    }));
    let offset = 0;
    const parts = shapes.map(({ shape, types, json }) => {
      const text = groupedText(shape, offset, types, json);
      offset += shape.arrays + (json.some(Boolean) ? 1 : 0);
      return text;
    });
    if (kind === 'reads') return { sql: parts[0]!, shapes, counted: false };
    const members = `$${offset + 1}::bigint`;
    const names = parts.map((_, i) => `w${i + 1}`);
    // The guarded update first; the writes' last one (an insert) gives the rows.
    const result = kind === 'guarded' ? names[0]! : names[names.length - 1]!;
    if (kind === 'guarded' && !shapes[0]!.shape.update) return null;
    // Every update touched exactly one row per member, or nothing is written.
    const counted = names
      .filter((_, i) => shapes[i]!.shape.update)
      .map((name) => `(select count(*) from ${name}) = ${members}`);
    if (kind === 'writes' && counted.length === 0) {
      const last = parts.pop()!;
      return {
        sql: parts.length === 0 ? last : `with ${parts.map((p, i) => `${names[i]} as (${p})`).join(', ')} ${last}`,
        shapes,
        counted: false,
      };
    }
    // Writes with an update (an idempotency key's binding): their last insert must give the rows.
    if (
      kind === 'writes' &&
      (shapes[shapes.length - 1]!.shape.update || !/ returning /i.test(texts[texts.length - 1]!))
    )
      return null;
    const ctes = parts.map((p, i) => `${names[i]} as (${p})`);
    const sql = `with ${ctes.join(', ')} select ${result}.* from (values (svc_require(${counted.join(' and ')}, 'grouped update found other rows than its members'))) as guard (ok) left join ${result} on true`;
    return { sql, shapes, counted: true };
  }

  /**
   * How to group `text`, and the types PostgreSQL gives its arrays: the text is prepared once per
   * process (under a name of its own, then deallocated) and its parameter types read from
   * `pg_prepared_statements`. Null when it cannot be grouped.
   */
  private shape(text: string, read: boolean): Promise<{ shape: WriteShape; types: string[] } | null> {
    return bounded(this.shapes, text, () => this.probe(text, read));
  }

  private async probe(text: string, read: boolean): Promise<{ shape: WriteShape; types: string[] } | null> {
    const shape = read ? readShape(text) : writeShape(text);
    if (!shape) return null;
    const types = await parameterTypes(this.db, text, `svc_group_probe_${++this.probes}`);
    if (!types) return null;
    const arrayTypes = shape.rowParams[0]!.map((n) => types[n - 1] ?? 'unknown');
    // An array-typed or untyped parameter has no array of its own to travel in.
    if (arrayTypes.some((t) => t === 'unknown' || t.endsWith('[]') || t.startsWith('_'))) return null;
    return { shape, types: arrayTypes };
  }
}

/**
 * A parameter holding `values` as a PostgreSQL array for the driver to write, when `arrayLiteral`
 * does not know one of them (a Buffer, a Date of another type than timestamptz): JSON values are
 * sent as their text (the driver would otherwise take a JavaScript array for a PostgreSQL one).
 * Null when a value cannot travel in an array.
 */
function arrayParameter(values: unknown[], type: string): unknown[] | null {
  const json = type === 'json' || type === 'jsonb';
  const out: unknown[] = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === undefined) return null;
    if (json && value !== null && typeof value !== 'string') out[i] = JSON.stringify(value);
    else if (Array.isArray(value)) return null;
    else out[i] = value;
  }
  return out;
}

/**
 * `load(key)` once per process: kept in `cache` (a failure is kept as null, the texts do not
 * change); past MAX_SHAPES keys, new ones are null (run one by one) without loading.
 */
function bounded<T>(
  cache: Map<string, Promise<T | null>>,
  key: string,
  load: () => Promise<T | null>,
): Promise<T | null> {
  let found = cache.get(key);
  if (found) return found;
  if (cache.size >= MAX_SHAPES) return Promise.resolve(null);
  found = load().catch(() => null);
  cache.set(key, found);
  return found;
}

/**
 * The types PostgreSQL gives `text`'s parameters (`pg_prepared_statements`), read by preparing it
 * once under `name` on one connection and deallocating it; null when it names none.
 */
export async function parameterTypes(db: Db, text: string, name: string): Promise<string[] | null> {
  return db.connection().execute(async (connection) => {
    await connection.executeQuery(CompiledQuery.raw(`prepare ${name} as ${text}`));
    try {
      const { rows } = await sql<{
        types: string[];
      }>`select parameter_types::text[] as types from pg_prepared_statements where name = ${name}`.execute(connection);
      return rows[0]?.types ?? null;
    } finally {
      await connection.executeQuery(CompiledQuery.raw(`deallocate ${name}`));
    }
  });
}

/** Makes `db` (a pool, never a transaction) group the writes that ask for it. */
export function enableGroupCommit(db: Db, options: { maxInFlight: number; maxMembers: number }): GroupCommit {
  const committer = new GroupCommit(db, options);
  setGroupRunner(db, committer);
  return committer;
}
