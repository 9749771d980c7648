import { describe, expect, it, vi } from 'vitest';
import { ConnectorError } from '../../connectors/connector.ts';
import { callConnector } from './connector-call.ts';

const quietLog = () => ({ warn: vi.fn() });

describe('happy', () => {
  it('returns the answer as it came', async () => {
    const log = quietLog();
    expect(await callConnector(async () => ({ status: 'authorized' }), log)).toEqual({
      ok: true,
      value: { status: 'authorized' },
      ms: expect.any(Number),
    });
    expect(log.warn).not.toHaveBeenCalled();
  });
});

describe('errors', () => {
  it('turns a ConnectorError into an attempt failure of its kind, without the cause', async () => {
    const log = quietLog();
    const result = await callConnector(
      () => Promise.reject(new ConnectorError('unavailable', 'connection refused')),
      log,
    );
    expect(result).toEqual({ ok: false, kind: 'unavailable', message: 'connection refused', ms: expect.any(Number) });
    expect(log.warn).not.toHaveBeenCalled();
  });

  it('treats an unexpected error as an unknown outcome and logs it', async () => {
    const log = quietLog();
    const bug = new Error('boom');
    const result = await callConnector(() => Promise.reject(bug), log);
    expect(result).toEqual({
      ok: false,
      kind: 'timeout',
      message: 'unexpected connector error',
      ms: expect.any(Number),
    });
    expect(log.warn).toHaveBeenCalledWith({ err: bug }, expect.stringContaining('unknown'));
  });
});
