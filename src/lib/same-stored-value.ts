/**
 * Whether two values are the same once stored: objects whatever their keys' order (jsonb keeps its
 * own), arrays element by element, dates by instant, `undefined`, NaN and the infinities as `null`
 * (as JSON text holds them). It tells what comparing the two values' sorted-key JSON texts tells
 * (canonical-json.ts) without building the texts: the transaction row predicted before an
 * authorization's update is checked against the stored one on every authorization
 * (predicted-row.ts), and an encoded snapshot against the snapshot it came from on every write
 * (snapshot-codec.ts).
 */
export function sameStoredValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isNull(a) || isNull(b)) return isNull(a) && isNull(b);
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameStoredValue(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const key of keys) if (!Object.hasOwn(y, key) || !sameStoredValue(x[key], y[key])) return false;
  return true;
}

/** What JSON writes as null. */
const isNull = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'number' && !Number.isFinite(value));
