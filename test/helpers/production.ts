import { randomBytes } from 'node:crypto';
import { MOCK_CARD_DEFINITION } from '../../src/connectors/mock/mock-card.connector.ts';
import { MOCK_REDIRECT_DEFINITION } from '../../src/connectors/mock/mock-redirect.connector.ts';
import { createDefaultRegistry } from '../../src/connectors/registry.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { sealFields } from '../../src/modules/payment-services/payment-service-fields.ts';
import { insertPaymentService } from '../../src/modules/payment-services/payment-services.repo.ts';
import { buildTestApp, type TestApp } from './build-test-app.ts';

/**
 * A server with ENVIRONMENT=production. The real connectors call the local fakes given (a
 * production config refuses STRIPE_API_BASE_URL and CONNECTOR_BASE_URLS, so the test hands the
 * registry over instead, as a test of a real deployment's provider would be).
 */
export function buildProductionApp(
  env: Record<string, string> = {},
  endpoints: { stripeApiBaseUrl?: string; baseUrls?: Record<string, string> } = {},
): Promise<TestApp> {
  return buildTestApp(
    { ENVIRONMENT: 'production', VAULT_MASTER_KEY: randomBytes(32).toString('base64'), ...env },
    {
      runtime: {
        connectors: createDefaultRegistry({
          stripeApiBaseUrl: endpoints.stripeApiBaseUrl ?? null,
          baseUrls: endpoints.baseUrls ?? {},
        }),
      },
    },
  );
}

const SANDBOX_DEFINITIONS = { 'mock-card': MOCK_CARD_DEFINITION, 'mock-paybybank': MOCK_REDIRECT_DEFINITION };

/**
 * A payment service as a database switched to production still holds it (a sandbox one, or any
 * other definition's): written as
 * `POST /payment-services` wrote it in the sandbox (fields sealed the same way), before the switch.
 */
export async function seedSandboxPaymentService(
  t: TestApp,
  merchantAccountId: string,
  definitionId: string,
  options: {
    currencies?: string[];
    countries?: string[];
    position?: number;
    threeDSecure?: boolean;
    fields?: Record<string, string>;
  } = {},
): Promise<string> {
  // Any other definition: as configured without its provider being asked (no fake needed).
  const definition =
    SANDBOX_DEFINITIONS[definitionId as keyof typeof SANDBOX_DEFINITIONS] ??
    t.deps.connectors.get(definitionId).definition;
  const id = uuidv7();
  await withTransaction(t.deps.db, async (tx) => {
    const stored = await sealFields(tx, t.deps, merchantAccountId, id, definition, {
      field: options.fields ?? { merchant_id: 'sandbox-merchant' },
      reporting_field: {},
    });
    await insertPaymentService(tx, {
      merchant_account_id: merchantAccountId,
      id,
      payment_service_definition_id: definitionId,
      method: definition.method,
      display_name: `Sandbox ${definitionId}`,
      position: options.position ?? 0,
      active: true,
      accepted_currencies: options.currencies ?? ['USD', 'EUR'],
      accepted_countries: options.countries ?? ['US', 'GB'],
      three_d_secure_enabled: options.threeDSecure ?? false,
      payment_method_tokenization_enabled: true,
      network_tokens_enabled: false,
      open_loop: false,
      settlement_reporting_enabled: false,
      merchant_profile: null,
      fields: JSON.stringify(stored.fields),
      reporting_fields: JSON.stringify(stored.reporting_fields),
      sealed_fields: JSON.stringify(stored.sealed_fields),
    });
  });
  t.deps.readCaches.paymentServices.invalidate(merchantAccountId);
  return id;
}
