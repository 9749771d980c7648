import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundedCall, CONNECTOR_TIMEOUT_MS } from './call.ts';
import { ConnectorError } from './connector.ts';

const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const never = () => new Promise<never>(() => {});

afterEach(() => {
  vi.useRealTimers();
});

describe('happy', () => {
  it('returns the answer with the time it took, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const pending = boundedCall(() => after(250, 'answer'));
    await vi.advanceTimersByTimeAsync(250);
    expect(await pending).toEqual({ ok: true, value: 'answer', ms: 250 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('accepts an answer just inside the bound', async () => {
    vi.useFakeTimers();
    const pending = boundedCall(() => after(CONNECTOR_TIMEOUT_MS - 1, 'late but in time'));
    await vi.advanceTimersByTimeAsync(CONNECTOR_TIMEOUT_MS - 1);
    expect(await pending).toMatchObject({ ok: true, value: 'late but in time' });
  });
});

describe('errors', () => {
  it('bounds a call at 30 s: the outcome is unknown (timeout), never a decline', async () => {
    vi.useFakeTimers();
    let settled = false;
    const pending = boundedCall(never).finally(() => { settled = true; });
    await vi.advanceTimersByTimeAsync(CONNECTOR_TIMEOUT_MS - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const result = await pending;
    expect(result).toMatchObject({ ok: false, kind: 'timeout', message: `no answer within ${CONNECTOR_TIMEOUT_MS} ms`, ms: CONNECTOR_TIMEOUT_MS, unexpected: false });
    expect(!result.ok && result.cause).toBeInstanceOf(ConnectorError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('takes a shorter bound, and drops a late answer or a late rejection quietly', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const late = await boundedCall(() => after(200, 'too late'), { timeoutMs: 20 });
      expect(late).toMatchObject({ ok: false, kind: 'timeout', message: 'no answer within 20 ms', unexpected: false });
      const rejected = await boundedCall(() => new Promise((_, reject) => setTimeout(() => reject(new Error('late failure')), 50)), { timeoutMs: 20 });
      expect(rejected).toMatchObject({ ok: false, kind: 'timeout' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it.each(['invalid_request', 'unavailable', 'timeout'] as const)('classifies a ConnectorError %s by its kind and keeps it as the cause', async (kind) => {
    const error = new ConnectorError(kind, `provider said ${kind}`);
    const result = await boundedCall(() => Promise.reject(error));
    expect(result).toEqual({ ok: false, kind, message: `provider said ${kind}`, ms: expect.any(Number), cause: error, unexpected: false });
  });

  it('classifies any other error as an unknown outcome (timeout), flagged unexpected, without its message', async () => {
    const bug = new TypeError('cannot read properties of undefined');
    const result = await boundedCall(() => Promise.reject(bug));
    expect(result).toEqual({ ok: false, kind: 'timeout', message: 'unexpected connector error', ms: expect.any(Number), cause: bug, unexpected: true });
  });

  it('classifies a synchronous throw and a thrown non-error the same way', async () => {
    const sync = await boundedCall((): Promise<never> => {
      throw new Error('thrown before any promise');
    });
    expect(sync).toMatchObject({ ok: false, kind: 'timeout', unexpected: true });
    const odd = await boundedCall(() => Promise.reject('a string'));
    expect(odd).toMatchObject({ ok: false, kind: 'timeout', unexpected: true, cause: 'a string' });
  });
});
