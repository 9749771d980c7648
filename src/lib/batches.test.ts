import { describe, expect, it } from 'vitest';
import { inBatchesUntilDone } from './batches.ts';

describe('happy', () => {
  it('runs the step until a batch handles nothing and adds the batches up', async () => {
    const batches = [1000, 1000, 37, 0, 99];
    let calls = 0;
    expect(await inBatchesUntilDone(async () => batches[calls++]!)).toBe(2037);
    expect(calls).toBe(4);
  });
});
