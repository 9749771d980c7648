import path from 'node:path';
import { ConfigError, customSetting, defineGroup, integer, read, type Variable } from '../lib/settings.ts';
import { CRASH_STEPS, parseCrashPoint, type TestFaults } from './test-faults.ts';

/** The crash-safety test's hooks (observability/test-faults.ts): never in production, where a variable that kills the process would be a weapon. */

const NOT_IN_PRODUCTION = 'Tests only, refused in production:';
const VARIABLES: Variable[] = [
  {
    name: 'TEST_CRASH_POINT',
    default: 'unset',
    description: `${NOT_IN_PRODUCTION} \`<step>:<name>\`, where the crash-safety tests stop the process (observability/test-faults.ts)`,
  },
  {
    name: 'TEST_CONNECTOR_CALL_LOG',
    default: 'unset',
    description: `${NOT_IN_PRODUCTION} a file where every connector call is logged (crash-safety tests)`,
  },
  {
    name: 'TEST_IDEMPOTENCY_LEASE_MS',
    default: 'unset',
    description: `${NOT_IN_PRODUCTION} the idempotency claim's lease in milliseconds (100 to 120000)`,
  },
];

export const testSettings = defineGroup('Tests', {
  testFaults: customSetting(VARIABLES, (env, environment): TestFaults => {
    for (const { name } of VARIABLES) {
      if (read(env, name) !== undefined && environment === 'production')
        throw new ConfigError(name, 'is for the crash-safety tests only and is refused in production');
    }
    const point = read(env, 'TEST_CRASH_POINT');
    const crashPoint = point === undefined ? null : parseCrashPoint(point);
    if (point !== undefined && !crashPoint)
      throw new ConfigError(
        'TEST_CRASH_POINT',
        `must be <step>:<name> with step one of ${CRASH_STEPS.join(', ')}, got "${point}"`,
      );
    const callLog = read(env, 'TEST_CONNECTOR_CALL_LOG');
    const lease =
      read(env, 'TEST_IDEMPOTENCY_LEASE_MS') === undefined
        ? null
        : integer(env, 'TEST_IDEMPOTENCY_LEASE_MS', 0, 100, 120_000);
    return {
      crashPoint,
      connectorCallLog: callLog === undefined ? null : path.resolve(callLog),
      idempotencyLeaseMs: lease,
    };
  }),
});
