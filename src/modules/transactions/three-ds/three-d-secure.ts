import { createHash } from 'node:crypto';
import type { ThreeDSecureData } from '../../../connectors/connector.ts';
import {
  SANDBOX_THREE_DS_VERSION,
  type ThreeDsScenarioOutcome,
} from '../../three-ds-scenarios/three-ds-scenarios.schemas.ts';

/**
 * The sandbox 3DS server. It authenticates a card when the payment service has 3DS enabled: a
 * matching 3DS scenario forces the outcome; otherwise the 3DS test card is challenged and every
 * other card passes frictionless. A challenge waits for the buyer on the sandbox challenge page
 * (three-ds-challenge.service.ts): completing it yields the scenario's result, failing it always
 * declines (decision 0061).
 */

export interface ThreeDsDecision {
  /** Pass the authentication to the connector, stop the transaction before it, or wait for the buyer's challenge. */
  kind: 'authenticated' | 'failed' | 'skipped' | 'challenge';
  data: ThreeDSecureData | null;
  /** The transaction's `three_d_secure` object. */
  summary: Record<string, unknown>;
  errorCode: string | null;
  /** Set for `challenge`: what the buyer's "complete" and "fail" on the challenge page yield. */
  challenge?: ChallengeOutcomes;
}

/** The two ends of an interactive challenge, decided when it starts (deterministic). */
export interface ChallengeOutcomes {
  completed: ThreeDsDecision;
  failed: ThreeDsDecision;
}

const THREE_DS_TEST_CARD = '4000000000003220';

function authenticated(
  version: string,
  method: 'frictionless' | 'challenge',
  amount: number,
  seed: string,
): ThreeDsDecision {
  const cavv = createHash('sha256').update(seed).digest('base64').slice(0, 28);
  const data: ThreeDSecureData = {
    version,
    cavv,
    eci: '05',
    directoryResponse: method === 'challenge' ? 'C' : 'Y',
    authenticationResponse: 'Y',
  };
  return {
    kind: 'authenticated',
    data,
    errorCode: null,
    summary: {
      version,
      status: 'complete',
      method,
      amount,
      error_data: null,
      response_data: {
        version,
        cavv,
        eci: '05',
        directory_response: data.directoryResponse,
        authentication_response: 'Y',
        directory_transaction_id: seed.slice(0, 36),
      },
    },
  };
}

function refused(
  version: string,
  method: 'frictionless' | 'challenge',
  amount: number,
  status: 'declined' | 'error',
  detail: string,
): ThreeDsDecision {
  return {
    kind: status === 'declined' ? 'failed' : 'skipped',
    data: null,
    errorCode: status === 'declined' ? 'three_d_secure_authentication_failed' : null,
    summary: {
      version,
      status,
      method,
      amount,
      response_data: null,
      error_data: {
        code: status === 'declined' ? 'N' : 'U',
        description: detail,
        detail: null,
        component: 'sandbox-3ds-server',
      },
    },
  };
}

const failedChallenge = (version: string, amount: number) =>
  refused(version, 'challenge', amount, 'declined', 'The cardholder failed the challenge');

/**
 * A challenge waits for the buyer: `three_d_secure.status` is null (the spec's status enum has no
 * pending value) with method `challenge`. The scenario's `result` decides what completing it
 * yields: `Y` authenticated, `N` the same decline as failing it, `timeout` a 3DS error after which
 * the authorization goes ahead without 3DS data.
 */
function challenge(version: string, amount: number, result: string, seed: string): ThreeDsDecision {
  const completed =
    result === 'Y'
      ? authenticated(version, 'challenge', amount, seed)
      : result === 'N'
        ? failedChallenge(version, amount)
        : refused(version, 'challenge', amount, 'error', 'The challenge timed out');
  return {
    kind: 'challenge',
    data: null,
    errorCode: null,
    summary: { version, status: null, method: 'challenge', amount, response_data: null, error_data: null },
    challenge: { completed, failed: failedChallenge(version, amount) },
  };
}

/** A challenge that ended without the buyer: timed out (`error`) or the transaction was canceled (`cancelled`). */
export function abandonedChallenge(
  pending: Record<string, unknown>,
  status: 'error' | 'cancelled',
): Record<string, unknown> {
  const description =
    status === 'error' ? 'The challenge timed out' : 'The transaction was canceled during the challenge';
  return {
    ...pending,
    status,
    response_data: null,
    error_data: { code: 'U', description, detail: null, component: 'sandbox-3ds-server' },
  };
}

/** Pure: the decision for a scenario's outcome (or the default when none matched). */
export function decideThreeDs(
  outcome: ThreeDsScenarioOutcome | null,
  cardNumber: string | null,
  amount: number,
  seed: string,
): ThreeDsDecision {
  const effective = outcome ?? {
    version: SANDBOX_THREE_DS_VERSION,
    authentication: { transaction_status: cardNumber === THREE_DS_TEST_CARD ? 'C' : 'Y' },
    result: { transaction_status: 'Y' },
  };
  const { version } = effective;
  switch (effective.authentication.transaction_status) {
    case 'Y':
    case 'A':
      return authenticated(version, 'frictionless', amount, seed);
    case 'C':
      return challenge(version, amount, effective.result?.transaction_status ?? 'Y', seed);
    case 'N':
    case 'R':
      return refused(version, 'frictionless', amount, 'declined', 'The issuer refused authentication');
    default:
      // U or timeout: authentication unavailable; the authorization goes ahead without it.
      return refused(version, 'frictionless', amount, 'error', 'Authentication unavailable');
  }
}

/** 3DS data given by the merchant (authenticated elsewhere): passed through as is. */
export function passThrough(
  data: {
    version: string;
    cavv: string;
    eci: string;
    directory_response: string;
    authentication_response?: string | null;
    xid?: string | null;
    cavv_algorithm?: string | null;
    directory_transaction_id?: string | null;
  },
  amount: number,
): ThreeDsDecision {
  const response: Record<string, string | null> = {
    version: data.version,
    cavv: data.cavv,
    eci: data.eci,
    directory_response: data.directory_response,
    authentication_response: data.authentication_response ?? null,
  };
  if (data.xid) response.xid = data.xid;
  if (data.cavv_algorithm) response.cavv_algorithm = data.cavv_algorithm;
  if (data.directory_transaction_id) response.directory_transaction_id = data.directory_transaction_id;
  return {
    kind: 'authenticated',
    data: {
      version: data.version,
      cavv: data.cavv,
      eci: data.eci,
      directoryResponse: data.directory_response,
      authenticationResponse: data.authentication_response ?? null,
    },
    errorCode: null,
    summary: {
      version: data.version,
      status: 'complete',
      method: null,
      amount,
      error_data: null,
      response_data: response,
    },
  };
}
