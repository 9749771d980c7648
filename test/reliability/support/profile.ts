/**
 * The suite's two sizes. `ci` (the default) is what `.ci/run` runs and must finish in under 10
 * minutes on a 2-core machine; `release` is the longer run for a release (docs/reliability.md).
 */
export type ProfileName = 'ci' | 'release';

export interface Profile {
  name: ProfileName;
  /** Fuzzer: generated requests per operation of /openapi.json. */
  fuzzRunsPerOperation: number;
  /** Fuzzer and kill-moment seed (FUZZ_SEED overrides it to replay a run). */
  fuzzSeed: number;
  /** Crash test: SIGKILLs per database (CRASH_KILLS overrides it). */
  killsPerDatabase: number;
  /** Crash test: concurrent clients sending traffic between kills. */
  crashClients: number;
  /** Slow clients: requests measured in each of the undisturbed and disturbed runs. */
  latencySamples: number;
  /** Slow clients: idle connections opened against the server. */
  idleConnections: number;
}

const PROFILES: Record<ProfileName, Omit<Profile, 'name' | 'fuzzSeed'>> = {
  ci: { fuzzRunsPerOperation: 30, killsPerDatabase: 5, crashClients: 4, latencySamples: 300, idleConnections: 200 },
  release: {
    fuzzRunsPerOperation: 200,
    killsPerDatabase: 20,
    crashClients: 6,
    latencySamples: 2000,
    idleConnections: 1000,
  },
};

export function loadProfile(env: Record<string, string | undefined> = process.env): Profile {
  const raw = env.RELIABILITY_PROFILE ?? 'ci';
  if (raw !== 'ci' && raw !== 'release') throw new Error(`RELIABILITY_PROFILE must be ci or release, got "${raw}"`);
  const seed = env.FUZZ_SEED === undefined ? 20_261_125 : Number(env.FUZZ_SEED);
  if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got "${env.FUZZ_SEED}"`);
  const kills = env.CRASH_KILLS === undefined ? {} : { killsPerDatabase: Number(env.CRASH_KILLS) };
  return { name: raw, fuzzSeed: seed, ...PROFILES[raw], ...kills };
}

/** Prints a figure the suite measured, one greppable line per section (docs/reliability.md quotes them). */
export function report(section: string, figures: Record<string, number | string>): void {
  const line = `[reliability] ${section}: ${Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`;
  process.stdout.write(`${line}\n`);
}
