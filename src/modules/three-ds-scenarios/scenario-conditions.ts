/**
 * The pure rules of 3DS scenarios: when a scenario applies to a transaction, and how its card
 * number condition is shown. No I/O: the service fingerprints the card before asking.
 */

/** A scenario's conditions as stored: null is "no condition"; the card is its vault fingerprint. */
export interface StoredConditions {
  first_name: string | null;
  last_name: string | null;
  email_address: string | null;
  amount: number | string | null;
  external_identifier: string | null;
  card_fingerprint: string | null;
}

/** What is known of a transaction, with its card number already fingerprinted. */
export interface ComparableFacts {
  amount: number;
  cardFingerprint: string | null;
  externalIdentifier: string | null;
  buyer: { firstName: string | null; lastName: string | null; emailAddress: string | null } | null;
}

/**
 * Whether every condition the scenario sets equals the fact. A set condition never matches a
 * missing fact. Names compare exactly; e-mail addresses ignore case (as mail providers do for
 * the local part in practice, and always for the domain).
 */
export function conditionsMatch(conditions: StoredConditions, facts: ComparableFacts): boolean {
  const set = <T>(value: T | null): value is T => value !== null;
  if (set(conditions.amount) && Number(conditions.amount) !== facts.amount) return false;
  if (set(conditions.card_fingerprint) && conditions.card_fingerprint !== facts.cardFingerprint) return false;
  if (set(conditions.external_identifier) && conditions.external_identifier !== facts.externalIdentifier) return false;
  if (set(conditions.first_name) && conditions.first_name !== (facts.buyer?.firstName ?? null)) return false;
  if (set(conditions.last_name) && conditions.last_name !== (facts.buyer?.lastName ?? null)) return false;
  if (set(conditions.email_address)) {
    const email = facts.buyer?.emailAddress;
    if (!email || email.toLowerCase() !== conditions.email_address.toLowerCase()) return false;
  }
  return true;
}

/** Whether a conditions body sets at least one condition (null and absent are both unset). */
export function hasCondition(conditions: Record<string, unknown>): boolean {
  return Object.values(conditions).some((value) => value !== null && value !== undefined);
}

/**
 * The stored, returned form of a card number: first 6 and last 4 digits, one `*` per hidden digit
 * (`4111111111111111` → `411111******1111`). Six, not the eight of a stored card's BIN: the mask
 * is shown next to the scenario and the usual test-card notation is 6 + 4.
 */
export function maskCardNumber(number: string): string {
  return `${number.slice(0, 6)}${'*'.repeat(Math.max(0, number.length - 10))}${number.slice(-4)}`;
}
