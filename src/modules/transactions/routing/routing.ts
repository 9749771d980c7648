import { acceptanceProblem } from '../../payment-services/acceptance.ts';
import { eliminate, type BreakerView } from './elimination.ts';

/**
 * Routing: which payment service processes a transaction. Pure (the candidates are loaded by the
 * caller), so rules can be added here without touching the engine. The trace it returns is kept
 * with the transaction (its `route-transaction` action): which services were eligible, which were
 * skipped and why, which won.
 */

export interface RoutingCandidate {
  id: string;
  definitionId: string;
  method: string;
  displayName: string;
  acceptedCurrencies: readonly string[];
  acceptedCountries: readonly string[];
  active: boolean;
  position: number;
}

export interface RoutingRequest {
  method: string;
  currency: string;
  country: string | null;
  /** `payment_service_id` of the request: forces this service and skips the rules. */
  forcedServiceId: string | null;
  /** Definitions that have a connector in this process. */
  knownDefinitions: ReadonlySet<string>;
  /**
   * A wallet token passed on encrypted (`token_decryption: payment-service`): only services of the
   * definitions whose connector decrypts that wallet's tokens (`acceptedBy`) can take it.
   */
  walletToken?: { provider: 'apple' | 'google'; acceptedBy: ReadonlySet<string> } | null;
  /**
   * A network token (a wallet's device token decrypted here, Click to Pay, Paze, or `network-token`
   * of the request): only services of the definitions whose connector takes network tokens.
   */
  networkToken?: { acceptedBy: ReadonlySet<string> } | null;
  /** The circuits of the services (elimination.ts); absent or null: none is open. Ignored for a forced service. */
  breakers?: BreakerView | null;
}

/** The skip reason of a service whose connector cannot decrypt the wallet token passed on to it. */
export const WALLET_TOKEN_NOT_ACCEPTED = 'encrypted_wallet_token_not_accepted';
/** The skip reason of a service whose connector does not take network tokens. */
export const NETWORK_TOKEN_NOT_SUPPORTED = 'network_tokens_not_supported';
const WALLETS = { apple: 'Apple Pay', google: 'Google Pay' } as const;

export interface RoutingTrace {
  /** `flow-rule`: a route-transaction rule chose the candidates (flow-route.ts). */
  rule: 'forced-payment-service' | 'first-eligible-by-position' | 'flow-rule';
  eligible: string[];
  skipped: Array<{ payment_service_id: string; reason: string }>;
  selected: string | null;
  /** Elimination (elimination.ts): services kept although their circuit is open, half-open ones probed. */
  circuit_open_kept?: string[];
  circuit_probes?: string[];
}

function skipReason(candidate: RoutingCandidate, request: RoutingRequest): string | null {
  if (!candidate.active) return 'inactive';
  if (!request.knownDefinitions.has(candidate.definitionId)) return 'no_connector';
  if (candidate.method !== request.method) return 'method_not_supported';
  // A transaction without a country is not filtered by country (the buyer's country is unknown).
  const problem = acceptanceProblem(candidate, request.currency, request.country);
  if (problem) return problem;
  // Last: these reasons name services that could take the transaction but for its instrument.
  if (request.networkToken && !request.networkToken.acceptedBy.has(candidate.definitionId))
    return NETWORK_TOKEN_NOT_SUPPORTED;
  return request.walletToken && !request.walletToken.acceptedBy.has(candidate.definitionId)
    ? WALLET_TOKEN_NOT_ACCEPTED
    : null;
}

/** Picks the payment service; `selected` is null when none can take the transaction. */
export function route(candidates: readonly RoutingCandidate[], request: RoutingRequest): RoutingTrace {
  const ordered = [...candidates].sort((a, b) => a.position - b.position);
  const pool = request.forcedServiceId ? ordered.filter((c) => c.id === request.forcedServiceId) : ordered;
  const trace: RoutingTrace = {
    rule: request.forcedServiceId ? 'forced-payment-service' : 'first-eligible-by-position',
    eligible: [],
    skipped: [],
    selected: null,
  };
  for (const candidate of pool) {
    const reason = skipReason(candidate, request);
    if (reason) trace.skipped.push({ payment_service_id: candidate.id, reason });
    else trace.eligible.push(candidate.id);
  }
  if (request.breakers && !request.forcedServiceId) eliminate(trace, request.breakers);
  trace.selected = trace.eligible[0] ?? null;
  return trace;
}

/**
 * Why no service took an encrypted wallet token, and what to do, when that is the reason (some
 * service was skipped only for it); null otherwise.
 */
export function walletTokenRefusal(request: Pick<RoutingRequest, 'walletToken'>, trace: RoutingTrace): string | null {
  if (!request.walletToken || trace.selected || !trace.skipped.some((s) => s.reason === WALLET_TOKEN_NOT_ACCEPTED))
    return null;
  const wallet = WALLETS[request.walletToken.provider];
  const able = [...request.walletToken.acceptedBy].sort().join(', ') || 'none in this server';
  return `No payment service can take this ${wallet} token: the ${request.walletToken.provider} wallet passes its tokens on encrypted (token_decryption payment-service), and the connectors of the eligible services cannot decrypt ${wallet} tokens. Add a payment service whose connector can (${able}), or set the wallet's token_decryption to server so that this server decrypts the tokens`;
}

/** Why no service took a network token, and what to do, when that is the reason; null otherwise. */
export function networkTokenRefusal(request: Pick<RoutingRequest, 'networkToken'>, trace: RoutingTrace): string | null {
  if (!request.networkToken || trace.selected || !trace.skipped.some((s) => s.reason === NETWORK_TOKEN_NOT_SUPPORTED))
    return null;
  const able = [...request.networkToken.acceptedBy].sort().join(', ') || 'none in this server';
  return `No payment service can take this payment: it is paid with a network token (a wallet's device token with its cryptogram), and the connectors of the eligible services do not take network tokens. Add a payment service whose connector does (${able})`;
}

/** The message of the 400 when no service can take the transaction. */
export function noRouteMessage(
  request: Pick<RoutingRequest, 'method' | 'currency' | 'country' | 'forcedServiceId' | 'walletToken' | 'networkToken'>,
  trace: RoutingTrace,
): string {
  const wallet = walletTokenRefusal(request, trace) ?? networkTokenRefusal(request, trace);
  if (wallet && !request.forcedServiceId) return wallet;
  if (request.forcedServiceId) {
    const skipped = trace.skipped[0];
    return skipped
      ? `The payment service ${request.forcedServiceId} cannot process this transaction (${skipped.reason.replaceAll('_', ' ')})`
      : `The payment service ${request.forcedServiceId} could not be found`;
  }
  return `No active payment service accepts method ${request.method} in ${request.currency}${request.country ? ` for country ${request.country}` : ''}; configure one with POST /payment-services`;
}
