import { fieldRefusal } from '../../errors/app-error.ts';

export const NETWORK_TOKEN_STATUSES = ['active', 'inactive', 'suspended', 'deleted'] as const;
export type NetworkTokenStatus = (typeof NETWORK_TOKEN_STATUSES)[number];

/**
 * The allowed changes of a network token's status. `inactive` (provisioned, not yet usable) is in
 * the spec's enumeration; the simulated token service issues tokens `active` at once, so only
 * deletion leaves it. `deleted` is final: the token value is destroyed with it.
 */
const ALLOWED: Record<NetworkTokenStatus, readonly NetworkTokenStatus[]> = {
  inactive: ['deleted'],
  active: ['suspended', 'deleted'],
  suspended: ['active', 'deleted'],
  deleted: [],
};

export function canTransition(from: NetworkTokenStatus, to: NetworkTokenStatus): boolean {
  return ALLOWED[from].includes(to);
}

/** Throws 400 `bad_request` naming both states when `from → to` is not allowed. */
export function assertTransition(from: NetworkTokenStatus, to: NetworkTokenStatus): void {
  if (canTransition(from, to)) return;
  throw fieldRefusal(
    'path',
    '/network_token_id',
    `Illegal status transition ${from} → ${to}`,
    'invalid_status_transition',
    `The network token is ${from}: it cannot become ${to}`,
  );
}

/** Throws 400 `bad_request` unless the token can be used for a payment (a cryptogram). */
export function assertUsable(status: NetworkTokenStatus): void {
  if (status === 'active') return;
  throw fieldRefusal(
    'path',
    '/network_token_id',
    `The token is ${status}, not active`,
    'network_token_not_active',
    `The network token is ${status}: a cryptogram can only be provisioned for an active token`,
  );
}
