import type { ConnectorRegistry } from '../../../connectors/registry.ts';
import type { PaymentServiceRow } from '../../../db/schema.ts';
import type { Authenticator } from './step-up.ts';

/**
 * Who authenticates a card at a service for a step-up (docs/routing.md, "Step-up authentication on
 * retry"): the sandbox 3DS server where 3DS is enabled (not in production), else a provider that
 * authenticates cards itself; null when neither. The engine (create/step-up.ts) and the dry run
 * (flows/dry-run-step-up.ts) hand it to `stepUpVerdict`.
 */
export function authenticatorOf(
  connectors: ConnectorRegistry,
  rows: readonly PaymentServiceRow[],
  id: string,
  production: boolean,
): Authenticator | null {
  const row = rows.find((r) => r.id === id);
  if (!row?.active) return null;
  if (row.three_d_secure_enabled && !production) return 'sandbox-3ds-server';
  const connector = connectors.find(row.payment_service_definition_id);
  return connector?.definition.capabilities.providerAuthentication ? 'payment-service' : null;
}
