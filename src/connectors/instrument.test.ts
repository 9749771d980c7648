import { describe, expect, it, vi } from 'vitest';
import { ConnectorError, type AuthorizeRequest, type PaymentConnector } from './connector.ts';
import type { ObservedCall } from './instrument.ts';
import { MockCardConnector } from './mock/mock-card.connector.ts';
import { ConnectorRegistry } from './registry.ts';

/** A mock-card connector whose authorize answers or throws as told. */
function registryWith(authorize: PaymentConnector['authorize']) {
  const connector = new MockCardConnector();
  connector.authorize = authorize;
  const calls: ObservedCall[] = [];
  const registry = new ConnectorRegistry().register(connector).observe((call) => calls.push(call));
  return { registry, calls, connector };
}

const request = {} as AuthorizeRequest;
const answer = { status: 'declined' } as Awaited<ReturnType<PaymentConnector['authorize']>>;

describe('happy', () => {
  it('reports each provider call with its definition, operation, duration and answer status', async () => {
    const { registry, calls } = registryWith(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return answer;
    });
    expect(await registry.get('mock-card').authorize(request)).toBe(answer);
    expect(calls).toEqual([
      { definition: 'mock-card', operation: 'authorize', ms: expect.any(Number), result: 'ok', status: 'declined' },
    ]);
    expect(calls[0]!.ms).toBeGreaterThanOrEqual(15);
  });

  it('leaves local computations and the definition unwrapped', () => {
    const { registry, calls, connector } = registryWith(async () => answer);
    const wrapped = registry.get('mock-card');
    expect(wrapped.definition).toBe(connector.definition);
    expect(wrapped.captureRules({})).toEqual(connector.captureRules({}));
    expect(calls).toEqual([]);
  });
});

describe('errors', () => {
  it('reports the ConnectorError kind, or error for anything else, and rethrows it unchanged', async () => {
    const unavailable = new ConnectorError('unavailable', 'down');
    const { registry, calls } = registryWith(async () => {
      throw unavailable;
    });
    await expect(registry.get('mock-card').authorize(request)).rejects.toBe(unavailable);
    const bug = new TypeError('bug');
    const other = registryWith(async () => {
      throw bug;
    });
    await expect(other.registry.get('mock-card').authorize(request)).rejects.toBe(bug);
    expect([calls[0]!.result, other.calls[0]!.result]).toEqual(['unavailable', 'error']);
  });
});

describe('security', () => {
  it('an observer that throws never changes the answer of a payment', async () => {
    const connector = new MockCardConnector();
    connector.authorize = async () => answer;
    const registry = new ConnectorRegistry().register(connector).observe(() => {
      throw new Error('metrics broke');
    });
    expect(await registry.get('mock-card').authorize(request)).toBe(answer);
  });
});

describe('errors (tests replace methods)', () => {
  it('calls a method replaced after registration (a spy), and wraps a restored one only once', async () => {
    const { registry, calls } = registryWith(async () => answer);
    const wrapped = registry.get('mock-card');
    const other = { status: 'authorized' } as typeof answer;
    const spy = vi.spyOn(wrapped, 'authorize').mockResolvedValueOnce(other);
    expect(await wrapped.authorize(request)).toBe(other);
    expect(spy).toHaveBeenCalledOnce();
    spy.mockRestore();
    calls.length = 0;
    expect(await wrapped.authorize(request)).toBe(answer);
    expect(calls).toHaveLength(1);
  });
});
