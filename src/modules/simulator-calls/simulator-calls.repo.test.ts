import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../../test/helpers/build-test-app.ts';
import { groupRunnerOf } from '../../db/write-batch.ts';
import type { Runtime } from '../../deps.ts';
import { databaseLedger } from './simulator-calls.repo.ts';

describe('happy', () => {
  let runtime: Runtime;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ runtime, dispose } = await openTestRuntime());
  });
  afterAll(async () => dispose?.());

  it("concurrent calls' entries go in grouped statements, each kept with its own answer, a repeat ignored", async () => {
    const ledger = databaseLedger(runtime.deps.db);
    const before = groupRunnerOf(runtime.deps.db)!.stats.statements;
    const call = (i: number) => ({ service: 'mock-card', operation: 'authorize', idempotencyKey: `ledger-${i}` });
    await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.received(call(i), i % 2 ? { n: i } : null)));
    expect(groupRunnerOf(runtime.deps.db)!.stats.statements).toBeGreaterThan(before);
    await Promise.all([ledger.received(call(1), { n: 'other' }), ledger.received(call(2), { n: 'other' })]);
    for (let i = 0; i < 20; i++) {
      const found = await ledger.lookup(call(i));
      expect(found?.answer ?? null).toEqual(i % 2 ? { n: i } : null);
    }
  });
});
