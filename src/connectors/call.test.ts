import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, boundedCall, callConnector, CONNECTOR_TIMEOUT_MS, unknownOutcome } from './call.ts';
import { AppError } from '../errors/app-error.ts';
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
    const pending = boundedCall(never).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(CONNECTOR_TIMEOUT_MS - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const result = await pending;
    expect(result).toMatchObject({
      ok: false,
      kind: 'timeout',
      message: `no answer within ${CONNECTOR_TIMEOUT_MS} ms`,
      ms: CONNECTOR_TIMEOUT_MS,
      unexpected: false,
    });
    expect(!result.ok && result.cause).toBeInstanceOf(ConnectorError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('takes a shorter bound, and drops a late answer or a late rejection quietly', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const late = await boundedCall(() => after(200, 'too late'), { timeoutMs: 20 });
      expect(late).toMatchObject({ ok: false, kind: 'timeout', message: 'no answer within 20 ms', unexpected: false });
      const rejected = await boundedCall(
        () => new Promise((_, reject) => setTimeout(() => reject(new Error('late failure')), 50)),
        { timeoutMs: 20 },
      );
      expect(rejected).toMatchObject({ ok: false, kind: 'timeout' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it.each(['invalid_request', 'unavailable', 'timeout'] as const)(
    'classifies a ConnectorError %s by its kind and keeps it as the cause',
    async (kind) => {
      const error = new ConnectorError(kind, `provider said ${kind}`);
      const result = await boundedCall(() => Promise.reject(error));
      expect(result).toEqual({
        ok: false,
        kind,
        message: `provider said ${kind}`,
        ms: expect.any(Number),
        cause: error,
        unexpected: false,
      });
    },
  );

  it('classifies any other error as an unknown outcome (timeout), flagged unexpected, without its message', async () => {
    const bug = new TypeError('cannot read properties of undefined');
    const result = await boundedCall(() => Promise.reject(bug));
    expect(result).toEqual({
      ok: false,
      kind: 'timeout',
      message: 'unexpected connector error',
      ms: expect.any(Number),
      cause: bug,
      unexpected: true,
    });
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

describe('per-caller failure mappings', () => {
  it("unknownOutcome keeps the failure without its cause and logs only an unexpected error, with the caller's ids", async () => {
    const warn = vi.fn();
    const declined = await callConnector(
      () => Promise.reject(new ConnectorError('unavailable', 'down')),
      unknownOutcome({ warn }, { payoutId: 'p1' }),
    );
    expect(declined).toEqual({ ok: false, kind: 'unavailable', message: 'down', ms: expect.any(Number) });
    expect(warn).not.toHaveBeenCalled();
    const bug = await callConnector(
      () => Promise.reject(new TypeError('x')),
      unknownOutcome({ warn }, { payoutId: 'p1' }),
    );
    expect(bug).toEqual({ ok: false, kind: 'timeout', message: 'unexpected connector error', ms: expect.any(Number) });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ payoutId: 'p1', err: expect.any(TypeError) }),
      expect.stringContaining('unknown'),
    );
  });

  it("apiError answers 504 for a timeout and 502 for another failure, without the provider's message; a bug is rethrown", async () => {
    const timeout = await callConnector(
      () => Promise.reject(new ConnectorError('timeout', 'secret detail')),
      apiError,
    ).catch((e: unknown) => e);
    expect(timeout).toBeInstanceOf(AppError);
    expect(timeout).toMatchObject({ code: 'gateway_timeout', message: 'The payment service did not answer in time' });
    const refused = await callConnector(
      () => Promise.reject(new ConnectorError('invalid_request', 'secret detail')),
      apiError,
    ).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'bad_gateway' });
    expect((refused as Error).message).not.toContain('secret detail');
    const bug = new RangeError('bug');
    await expect(callConnector(() => Promise.reject(bug), apiError)).rejects.toBe(bug);
  });

  it('passes the answer through unchanged', async () => {
    expect(await callConnector(() => Promise.resolve(42), apiError)).toEqual({
      ok: true,
      value: 42,
      ms: expect.any(Number),
    });
  });
});
