/** The benchmark scripts' numeric settings from the environment, refused with their name when malformed. */

/** `name` as a whole number ≥ 1, or `fallback` when unset or empty. */
export function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

/** `name` as a whole number of seconds ≥ 0, or `fallback` when unset or empty. */
export function whole(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number of seconds, got "${raw}"`);
  return Number(raw);
}
