import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../../connectors/connector.ts';
import { AppError } from '../../errors/app-error.ts';
import { createDefaultRegistry } from '../../connectors/registry.ts';
import { callConnector } from './payment-service-definitions.service.ts';

describe('happy', () => {
  it('every built-in definition says which fields verification checks, and checks each required one', () => {
    const definitions = createDefaultRegistry().definitions();
    expect(definitions.map((d) => d.id)).toEqual(
      expect.arrayContaining(['mock-card', 'adyen-card', 'stripe-card', 'braintree-card']),
    );
    for (const definition of definitions) {
      for (const field of [...definition.fields, ...definition.reportingFields]) {
        expect(typeof field.verifiable, `${definition.id} ${field.key}`).toBe('boolean');
        // A credential the service cannot work without is one verification must look at.
        if (field.required) expect(field.verifiable, `${definition.id} ${field.key}`).toBe(true);
      }
    }
    const verifiable = (id: string) =>
      createDefaultRegistry()
        .get(id)
        .definition.fields.filter((f) => f.verifiable)
        .map((f) => f.key);
    expect(verifiable('stripe-card')).toEqual(['secret_key']);
    expect(verifiable('adyen-card')).toEqual(['api_key', 'merchant_account', 'live_url_prefix']);
  });

  it('returns the answer as it came', async () => {
    expect(await callConnector(async () => ({ ok: true, problems: [] }))).toEqual({ ok: true, problems: [] });
  });
});

describe('errors', () => {
  it('answers 504 on a timeout and 502 on any other ConnectorError, keeping the provider message out', async () => {
    const timeout = new ConnectorError('timeout', 'provider secret detail');
    const caught = await callConnector(() => Promise.reject(timeout)).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(AppError);
    expect(caught).toMatchObject({ code: 'gateway_timeout', status: 504, cause: timeout });
    expect((caught as AppError).message).not.toContain('secret');
    for (const kind of ['unavailable', 'invalid_request'] as const) {
      await expect(
        callConnector(() => Promise.reject(new ConnectorError(kind, 'provider secret detail'))),
      ).rejects.toMatchObject({ code: 'bad_gateway', status: 502, message: expect.not.stringContaining('secret') });
    }
  });

  it('rethrows a connector bug as it was (a server error)', async () => {
    const bug = new TypeError('boom');
    await expect(callConnector(() => Promise.reject(bug))).rejects.toBe(bug);
  });
});
