/**
 * Which query texts get a named prepared statement, on both drivers (prepared-statements.ts for
 * `pg`, pglite-prepared.ts for PGlite). A text seen `HOT_AFTER` times gets a name: the session then
 * parses it once and binds it after that (PostgreSQL keeps a generic plan once it is as good as the
 * custom ones). Bounded: at most `MAX_NAMED` texts get a name (texts built from a variable number
 * of parameters, such as long IN lists, stay unnamed once the budget is spent), so the memory a
 * session holds stays bounded. A text whose prepared statement failed with "cached plan must not
 * change result type" (a migration altered its table) is never named again.
 */

const HOT_AFTER = 3;
const MAX_NAMED = 400;
const MAX_TEXT = 8_000;

/**
 * ON CONFLICT naming a partial unique index by its predicate: with the predicate's value as a
 * parameter, a generic plan cannot match the index (42P10), so such a text is never named.
 */
const PARTIAL_CONFLICT = /on conflict \([^)]*\) where /i;

export class StatementNames {
  private readonly seen = new Map<string, number>();
  private readonly names = new Map<string, string>();
  private readonly banned = new Set<string>();
  private counter = 0;

  constructor(private readonly prefix: string) {}

  /** The text's statement name, or null while it should run unnamed. */
  nameFor(text: string): string | null {
    const existing = this.names.get(text);
    if (existing) return existing;
    if (this.banned.has(text) || this.names.size >= MAX_NAMED || text.length > MAX_TEXT || PARTIAL_CONFLICT.test(text))
      return null;
    const count = (this.seen.get(text) ?? 0) + 1;
    if (count < HOT_AFTER) {
      // Forget counts now and then, so one-off texts do not pile up.
      if (this.seen.size >= 10_000) this.seen.clear();
      this.seen.set(text, count);
      return null;
    }
    this.seen.delete(text);
    const name = `${this.prefix}${++this.counter}`;
    this.names.set(text, name);
    return name;
  }

  /** Never names `text` again (its prepared statement's result type changed). */
  ban(text: string): void {
    this.banned.add(text);
    this.names.delete(text);
  }
}

/** "cached plan must not change result type" (SQLSTATE 0A000, feature not supported). */
export function isCachedPlanChange(error: unknown): boolean {
  return (
    (error as { code?: string } | null)?.code === '0A000' &&
    /cached plan must not change result type/.test((error as Error).message)
  );
}
