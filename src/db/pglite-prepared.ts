import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import { isCachedPlanChange, StatementNames } from './statement-names.ts';

type Message = Parameters<typeof parse.parseResults>[0][number];

/** What the session remembers of a named statement: its parameters' types and its columns. */
interface Prepared {
  name: string;
  paramTypes: number[];
  /** The statement's RowDescription (null for a statement that returns no rows). */
  columns: Message | null;
}

/**
 * Named prepared statements on PGlite. `PGlite.query` parses, describes, binds, describes and
 * executes every statement in six calls into the WebAssembly backend, and PostgreSQL parses,
 * analyses and plans the text each time (an unnamed statement). A hot text (statement-names.ts)
 * is parsed and described once per session; each run after that is one call (Bind, Execute, Sync)
 * on a plan PostgreSQL caches (custom plans at first, a generic plan once it is as good), with the
 * parameters serialized by PGlite's own serializers for the types the Describe reported, as
 * `PGlite.query` serializes them. Cold texts go through `PGlite.query` unchanged.
 *
 * A prepared statement whose result type a migration changed fails with "cached plan must not
 * change result type": the text is dropped, never named again, and run again unnamed at once when
 * no transaction is open (inside one, `withTransaction` retries the transaction, where the text now
 * runs unnamed).
 */
export class PreparedSession {
  private readonly names = new StatementNames('svc_');
  private readonly statements = new Map<string, Prepared>();

  constructor(private readonly client: PGlite) {}

  async query<R>(text: string, params: unknown[]): Promise<Results<R>> {
    const name = this.names.nameFor(text);
    if (!name) return this.client.query<R>(text, params);
    const prepared = this.statements.get(text) ?? (await this.prepare(text, name));
    try {
      return await this.client.runExclusive(() => this.run<R>(prepared, params));
    } catch (error) {
      if (!isCachedPlanChange(error)) throw error;
      this.statements.delete(text);
      this.names.ban(text);
      await this.client.runExclusive(() =>
        this.client.execProtocolStream(
          concat(protocol.serialize.close({ type: 'S', name }), protocol.serialize.sync()),
        ),
      );
      if (this.client.isInTransaction()) throw error;
      return this.client.query<R>(text, params);
    }
  }

  private async prepare(text: string, name: string): Promise<Prepared> {
    const { serialize } = protocol;
    const messages = (await this.client.runExclusive(() =>
      this.client.execProtocolStream(
        concat(serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()),
        { syncToFs: false },
      ),
    )) as Message[];
    const prepared: Prepared = {
      name,
      paramTypes: parse.parseDescribeStatementResults(messages),
      columns: messages.find((m) => m.name === 'rowDescription') ?? null,
    };
    this.statements.set(text, prepared);
    return prepared;
  }

  private async run<R>(prepared: Prepared, params: unknown[]): Promise<Results<R>> {
    const { serializers } = this.client;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = serializers[prepared.paramTypes[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const { serialize } = protocol;
    const messages = (await this.client.execProtocolStream(
      concat(serialize.bind({ statement: prepared.name, values }), serialize.execute({}), serialize.sync()),
    )) as Message[];
    const all = prepared.columns ? [prepared.columns, ...messages] : messages;
    return parse.parseResults(all, this.client.parsers)[0] as Results<R>;
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
