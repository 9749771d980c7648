import type { AuthorizeRequest } from '../../src/connectors/connector.ts';
import { signMockWebhook } from '../../src/connectors/mock/mock-card.webhooks.ts';
import { providerId } from '../../src/connectors/mock/mock-redirect.connector.ts';
import { DECISION_PARAM } from '../../src/connectors/mock/mock-redirect.sync.ts';
import { createDefaultRegistry } from '../../src/connectors/registry.ts';
import type { RedirectMethodHarness } from './contract.ts';

/**
 * The contract harness of a sandbox redirect simulator (`mock-*` on MockRedirectConnector): the
 * buyer's approval is what the simulated provider appends to our return address
 * (`sandbox_decision`), since the simulator keeps no state; `2005` declines once approved, `2408`
 * loses the answer; webhooks are the sandbox's signed events (mock-card.webhooks.ts).
 */
export function mockRedirectHarness(
  id: string,
  prefix: string,
  options: {
    method: string;
    currency: string;
    country: string;
    capturedAtOnce?: boolean;
    sale?: boolean;
    directDebit?: boolean;
    buyer?: AuthorizeRequest['buyer'];
  },
): () => RedirectMethodHarness {
  const connector = createDefaultRegistry().get(id);
  const credentials = { merchant_id: `${id}-contract`, webhook_secret: 'mock_whsec_contract' };
  return () => ({
    connector: () => connector,
    credentials: () => credentials,
    currency: options.currency,
    country: options.country,
    ...(options.buyer ? { buyer: options.buyer } : {}),
    ...(options.sale ? { sale: true } : {}),
    ...(options.directDebit ? { asyncModifications: true, voidOutcome: 'succeeded' as const } : {}),
    approve: { number: '', amount: 1000 },
    decline: { number: '', amount: 2005, errorCode: 'do_not_honor' },
    redirect: {
      method: options.method,
      ...(options.capturedAtOnce ? { capturedAtOnce: true } : {}),
      // Stateless: only the buyer's return (the engine's record of the choice) says what happened.
      statusOnlyWithReturn: true,
      approve: () => ({ [DECISION_PARAM]: 'approved' }),
      madeFor: (key) => providerId(prefix, key),
    },
    unanswered: () => ({ card: { number: '', amount: 2408 }, timeoutMs: 1000 }),
    webhook: (kind, providerTransactionId, amount, tamper) => {
      const body = JSON.stringify({
        id: `evt_${providerTransactionId}_${kind}`,
        type: kind.replace('_', '.'),
        transaction_id: providerTransactionId,
        amount,
        currency: options.currency,
      });
      return {
        headers: {
          'x-mock-signature': signMockWebhook(tamper ? 'another secret' : credentials.webhook_secret, body),
          'content-type': 'application/json',
        },
        rawBody: Buffer.from(body),
        url: 'http://localhost/webhooks',
      };
    },
  });
}
