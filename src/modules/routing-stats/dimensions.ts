/**
 * The dimensions a success rate is kept by (docs/routing.md, "Success-rate routing"): every
 * authorization counts under each level's key, from the most specific to the service overall
 * (`*`); the chooser uses the most specific key with enough samples.
 */
export interface DimensionFacts {
  scheme: string | null;
  currency: string;
  country: string | null;
  cardType: string | null;
  issuerCountry: string | null;
}

/** The levels, most specific first; the service overall (`*`) comes after them. */
export const DIMENSION_LEVELS = [
  ['scheme', 'currency', 'country', 'card_type', 'issuer_country'],
  ['scheme', 'currency', 'country'],
  ['scheme', 'currency'],
  ['currency'],
] as const;

/** The key of the service overall. */
export const OVERALL = '*';

const UNKNOWN = '-';
const cache = new Map<string, readonly string[]>();
const MAX_CACHED = 10_000;

/**
 * The keys of one transaction, most specific first, ending with `*`: e.g.
 * `scheme=visa,currency=USD,country=US,card_type=credit,issuer_country=US`, ...,
 * `currency=USD`, `*`. A fact the transaction lacks is `-`. Cached by the facts: the hot path
 * builds no strings for a combination it has seen.
 */
export function dimensionKeys(facts: DimensionFacts): readonly string[] {
  const values = {
    scheme: facts.scheme ?? UNKNOWN,
    currency: facts.currency,
    country: facts.country ?? UNKNOWN,
    card_type: facts.cardType ?? UNKNOWN,
    issuer_country: facts.issuerCountry ?? UNKNOWN,
  };
  const id = `${values.scheme}|${values.currency}|${values.country}|${values.card_type}|${values.issuer_country}`;
  const known = cache.get(id);
  if (known) return known;
  const keys = [...DIMENSION_LEVELS.map((level) => level.map((name) => `${name}=${values[name]}`).join(',')), OVERALL];
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(id, keys);
  return keys;
}
