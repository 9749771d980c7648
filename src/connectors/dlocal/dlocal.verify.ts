import type { VerifyOutcome } from '../connector.ts';
import type { DlocalClient } from './dlocal.client.ts';
import { DLOCAL_PIX_METHOD_ID } from './dlocal.definition.ts';
import { httpError } from './dlocal.mapping.ts';

type Problems = VerifyOutcome['problems'];

function fieldProblems(credentials: Record<string, string>): Problems {
  const problems: Problems = [];
  if (!credentials.x_login?.trim()) problems.push({ key: 'x_login', message: 'x_login is required' });
  if (!credentials.x_trans_key) problems.push({ key: 'x_trans_key', message: 'x_trans_key is required' });
  if (!credentials.secret_key) problems.push({ key: 'secret_key', message: 'secret_key is required' });
  const environment = credentials.environment?.trim();
  if (environment && environment !== 'sandbox' && environment !== 'live')
    problems.push({ key: 'environment', message: 'environment must be "sandbox" or "live"' });
  return problems;
}

/**
 * Field checks, then dLocal itself: the payment methods of Brazil (`GET /payments-methods?country=BR`,
 * docs.dlocal.com/reference/get-payment-methods), a signed call that fails with 401 for a wrong
 * login, key or secret, and that must list PIX (`PQ`) for the account.
 */
export async function verifyDlocal(client: DlocalClient, credentials: Record<string, string>): Promise<VerifyOutcome> {
  const problems = fieldProblems(credentials);
  if (problems.length > 0) return { ok: false, problems };
  const response = await client.call(credentials, 'GET', '/payments-methods?country=BR');
  if (response.status === 401 || response.status === 403)
    return {
      ok: false,
      problems: [
        {
          key: 'secret_key',
          message: `dLocal refused the X-Login, X-Trans-Key and secret key (${response.status}) in the ${credentials.environment?.trim() || 'sandbox'} environment`,
        },
      ],
    };
  if (response.status !== 200) throw httpError(response.status, response.json);
  const methods = Array.isArray(response.json) ? (response.json as Array<{ id?: string }>) : [];
  if (!methods.some((m) => m.id === DLOCAL_PIX_METHOD_ID))
    return {
      ok: false,
      problems: [{ key: 'x_login', message: 'PIX (PQ) is not enabled for this dLocal account in Brazil' }],
    };
  return { ok: true, problems: [] };
}
