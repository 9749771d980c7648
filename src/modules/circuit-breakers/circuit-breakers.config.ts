import { defineGroup, flagSetting, integerSetting } from '../../lib/settings.ts';

/** The circuit breaker of each payment service (docs/routing.md, "Elimination: the circuit breaker"). */

export const circuitBreakerSettings = defineGroup('Circuit breakers', {
  circuitBreakerEnabled: flagSetting(
    'CIRCUIT_BREAKER_ENABLED',
    true,
    '`true` or `false`. Whether routing skips a payment service whose technical failures passed the threshold (its circuit is open) while another eligible service can take the transaction',
  ),
  circuitBreakerWindowSeconds: integerSetting('CIRCUIT_BREAKER_WINDOW_SECONDS', {
    default: 60,
    min: 5,
    max: 3600,
    description:
      'The sliding window over which a payment service’s technical failures (timeouts, unreachable, failed with a service error; never declines) are counted (5 to 3600)',
  }),
  circuitBreakerMinCalls: integerSetting('CIRCUIT_BREAKER_MIN_CALLS', {
    default: 10,
    min: 1,
    max: 100_000,
    description:
      'Authorizations a service needs within the window before its failure share can open its circuit (1 to 100000)',
  }),
  circuitBreakerFailurePercent: integerSetting('CIRCUIT_BREAKER_FAILURE_PERCENT', {
    default: 50,
    min: 1,
    max: 100,
    description: 'Share of technical failures within the window, at or above which the circuit opens (1 to 100)',
  }),
  circuitBreakerConsecutiveFailures: integerSetting('CIRCUIT_BREAKER_CONSECUTIVE_FAILURES', {
    default: 5,
    min: 0,
    max: 10_000,
    description:
      'Technical failures in a row that open the circuit whatever the volume (0 to 10000; 0: only the share counts)',
  }),
  circuitBreakerCooldownSeconds: integerSetting('CIRCUIT_BREAKER_COOLDOWN_SECONDS', {
    default: 30,
    min: 1,
    max: 3600,
    description: 'How long an open circuit keeps its service out of routing before probing it (half-open) (1 to 3600)',
  }),
  circuitBreakerProbePercent: integerSetting('CIRCUIT_BREAKER_PROBE_PERCENT', {
    default: 10,
    min: 1,
    max: 100,
    description:
      'Half-open: the share of the transactions routed to the service that each process sends it as probes (1 to 100); the first one is a probe',
  }),
  circuitBreakerSyncMs: integerSetting('CIRCUIT_BREAKER_SYNC_MS', {
    default: 1000,
    min: 50,
    max: 60_000,
    description:
      'How often each process adds its counts to the shared circuit state in the database and reloads the open circuits (50 to 60000 ms)',
  }),
});
