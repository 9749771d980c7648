import { isDeepStrictEqual } from 'node:util';
import type { Principal } from '../context.ts';
import { AppError } from '../errors/app-error.ts';

/** Claims of an `embed` token that pin the request body field of the same name. */
export const PINNED_FIELDS = [
  'amount',
  'currency',
  'buyer_id',
  'buyer_external_identifier',
  'metadata',
  'cart_items',
  'connection_options',
] as const;

type BuyerPin = 'buyer_id' | 'buyer_external_identifier';

/**
 * Every place a request body names a stored buyer (read from the create-transaction body, the one
 * embed operation with nested ones), and the pin it answers to. A token that pins a buyer permits
 * no other buyer anywhere in the body: the top-level fields are pinned like any PINNED_FIELDS
 * field, the nested ones are checked but never filled, and a buyer named by a key the token does
 * not pin is refused (comparing it with the pin would take a lookup).
 */
export const BUYER_REFERENCES: ReadonlyArray<{ path: readonly string[]; pin: BuyerPin }> = [
  { path: ['buyer_id'], pin: 'buyer_id' },
  { path: ['buyer_external_identifier'], pin: 'buyer_external_identifier' },
  { path: ['payment_method', 'buyer_id'], pin: 'buyer_id' },
  { path: ['payment_method', 'buyer_external_identifier'], pin: 'buyer_external_identifier' },
  { path: ['buyer', 'external_identifier'], pin: 'buyer_external_identifier' },
];

interface Conflict {
  path: readonly string[];
  kind: 'value' | 'key';
}

function valueAt(body: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = body;
  for (const key of path)
    value =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)[key]
        : undefined;
  return value;
}

function buyerConflicts(embed: Record<string, unknown>, body: Record<string, unknown>): Conflict[] {
  const pinned = (pin: BuyerPin) => typeof embed[pin] === 'string' && embed[pin] !== '';
  if (!pinned('buyer_id') && !pinned('buyer_external_identifier')) return [];
  return BUYER_REFERENCES.flatMap(({ path, pin }): Conflict[] => {
    const value = valueAt(body, path);
    // A top-level field the token pins was compared (or filled) with the other pinned fields.
    if (value === undefined || value === null || (path.length === 1 && pin in embed)) return [];
    if (!pinned(pin)) return [{ path, kind: 'key' }];
    return value === embed[pin] ? [] : [{ path, kind: 'value' }];
  });
}

function pinRefusal(embed: Record<string, unknown>, conflicts: Conflict[]): AppError {
  const names = (kind: Conflict['kind']) => conflicts.filter((c) => c.kind === kind).map((c) => c.path.join('.'));
  const values = names('value');
  const keys = names('key');
  const pins = (['buyer_id', 'buyer_external_identifier'] as const).filter(
    (pin) => typeof embed[pin] === 'string' && embed[pin] !== '',
  );
  const parts = [
    values.length > 0 ? `${values.join(', ')} must equal the pinned value${values.length > 1 ? 's' : ''}` : null,
    keys.length > 0 ? `the token pins the buyer by ${pins.join(' and ')}, so ${keys.join(', ')} may not be sent` : null,
  ].filter((part) => part !== null);
  return new AppError('forbidden', `The request contradicts the embed token: ${parts.join('; ')}`, {
    details: conflicts.map((c) => ({
      location: 'body' as const,
      pointer: `/${c.path.join('/')}`,
      message:
        c.kind === 'value'
          ? 'Must equal the value pinned by the embed token'
          : `The embed token pins the buyer by ${pins.join(' and ')}: name the buyer that way, or not at all`,
      type: 'embed_pin_mismatch',
    })),
  });
}

/**
 * Applies the embed claim to a request body: a pinned field the body leaves out takes the pinned
 * value; a pinned field the body sets to anything else is refused with 403 (the token does not
 * permit that request), naming the field. A pinned buyer also holds every other field that names a
 * buyer (BUYER_REFERENCES), nested ones included.
 */
export function applyEmbedPins(principal: Principal, body: unknown): void {
  const embed = principal.embed;
  if (!embed || body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const target = body as Record<string, unknown>;
  const conflicts: Conflict[] = PINNED_FIELDS.filter((field) => {
    if (!(field in embed)) return false;
    if (target[field] === undefined) {
      target[field] = structuredClone(embed[field]);
      return false;
    }
    return !isDeepStrictEqual(target[field], embed[field]);
  }).map((field) => ({ path: [field], kind: 'value' }));
  conflicts.push(...buyerConflicts(embed, target));
  if (conflicts.length > 0) throw pinRefusal(embed, conflicts);
}
