import { createHash } from 'node:crypto';

/**
 * Service-level simulation of the sandbox card processor, for demonstrating failover and splits
 * with two `mock-card` services: the fields `simulate_outcome` (what the processor does to every
 * affected authorization) and `simulate_share` (the percentage of authorizations affected, drawn
 * per attempt from its idempotency key, so a retried call gets the same outcome).
 */
export const SIMULATED_OUTCOMES = ['none', 'unavailable', 'error', 'decline', 'timeout'] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];

export const SIMULATION_FIELDS = [
  {
    key: 'simulate_outcome',
    display_name:
      'Simulate: none, unavailable (never reached), error (service_error), decline (do_not_honor) or timeout (authorized, answer lost)',
    required: false,
    format: 'text',
    secret: false,
    verifiable: false,
  },
  {
    key: 'simulate_share',
    display_name: 'Simulate: percentage of authorizations affected (1 to 100, default 100)',
    required: false,
    format: 'number',
    secret: false,
    verifiable: false,
  },
] as const;

/** What is wrong with the simulation fields (verify), one message per field. */
export function simulationProblems(credentials: Record<string, string>): Array<{ key: string; message: string }> {
  const problems: Array<{ key: string; message: string }> = [];
  const outcome = credentials.simulate_outcome;
  if (outcome !== undefined && !(SIMULATED_OUTCOMES as readonly string[]).includes(outcome)) {
    problems.push({
      key: 'simulate_outcome',
      message: `simulate_outcome must be one of ${SIMULATED_OUTCOMES.join(', ')}`,
    });
  }
  const share = credentials.simulate_share;
  if (share !== undefined && !/^(100|[1-9]\d?)$/.test(share))
    problems.push({ key: 'simulate_share', message: 'simulate_share must be a whole percentage from 1 to 100' });
  return problems;
}

/** The simulated outcome of the attempt with this idempotency key, or `none`. */
export function simulatedOutcome(credentials: Record<string, string>, idempotencyKey: string): SimulatedOutcome {
  const outcome = (credentials.simulate_outcome ?? 'none') as SimulatedOutcome;
  if (outcome === 'none' || !(SIMULATED_OUTCOMES as readonly string[]).includes(outcome)) return 'none';
  const share = Number(credentials.simulate_share ?? '100');
  const bucket = createHash('sha256').update(`simulate:${idempotencyKey}`).digest().readUInt32BE(0) % 100;
  return bucket < share ? outcome : 'none';
}
