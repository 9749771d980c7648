/** Escapes `\`, `%` and `_` so user text matches literally inside a LIKE pattern (default escape `\`). */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
