import type { RequestContext } from '../../context.ts';
import type { VaultForwardConfigRow } from '../../db/schema-vault-forward.ts';
import { forbidden } from '../../errors/app-error.ts';
import { privateTargetsPolicy, resolveDeliveryAddress, urlFormProblem, type UrlPolicy } from '../../lib/url-safety.ts';
import { refuseHeader } from './forward-request.ts';
import { anyMatches } from './host-rules.ts';
import { hostsOf } from './vault-forward-configs.schemas.ts';

/**
 * Where a vault forward may go. Its form first (https and host names only in production), then in
 * production the allow-list: the hosts of the merchant account's configs, within the instance's
 * ceiling VAULT_FORWARD_ALLOWED_HOSTS (both must allow the host); then what the name resolves to,
 * every address checked, and the one connected to returned.
 */

export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

function policyOf(ctx: RequestContext): UrlPolicy {
  const { config } = ctx.deps;
  return {
    ...privateTargetsPolicy(
      config.environment === 'production',
      config.vaultForwardAllowPrivateUrls,
      'VAULT_FORWARD_ALLOW_PRIVATE_URLS',
    ),
    hostNamesOnly: true,
  };
}

const refuseUrl = (problem: string) =>
  refuseHeader('x-vault-forward-url', `x-vault-forward-url: ${problem.replace(/^url /, 'the address ')}`);

export async function checkedTarget(
  ctx: RequestContext,
  raw: string,
  configs: readonly VaultForwardConfigRow[],
): Promise<CheckedTarget> {
  const policy = policyOf(ctx);
  const problem = urlFormProblem(raw, policy);
  if (problem) throw refuseUrl(problem);
  const url = new URL(raw);
  const host = url.hostname.toLowerCase();
  if (policy.production) {
    if (!anyMatches(host, configs.flatMap(hostsOf))) {
      throw forbidden(
        `Vault forwarding may not reach ${host}: in production only the hosts of the merchant account's vault forward configs are allowed (GET /vault-forward/configs; a custom config lists your own hosts)`,
      );
    }
    if (!anyMatches(host, ctx.deps.config.vaultForwardAllowedHosts)) {
      throw forbidden(
        `Vault forwarding may not reach ${host}: it is not within VAULT_FORWARD_ALLOWED_HOSTS, the hosts this instance may forward to`,
      );
    }
  }
  const resolved = await resolveDeliveryAddress(raw, policy);
  if (!resolved.ok) throw refuseUrl(resolved.problem);
  return { url, address: resolved.address, family: resolved.family };
}
