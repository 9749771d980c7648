/**
 * JSON with sorted keys (at every depth), so the same value written with other whitespace or key
 * order gives the same text: request bodies' fingerprints (src/http/idempotency-fingerprint.ts).
 * To only compare two values, same-stored-value.ts tells the same without building texts.
 */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
