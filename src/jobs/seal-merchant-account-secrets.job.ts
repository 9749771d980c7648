import { sealPlaintextSecrets } from '../modules/merchant-accounts/merchant-account-secrets.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Seals merchant-account secrets still held in clear (rows from before migration 0039, or written
 * by a process of the previous version during a rolling deploy) and clears the plaintext.
 */
export const sealMerchantAccountSecrets = defineJob({
  name: 'seal-merchant-account-secrets',
  payload: JOB_PAYLOADS['seal-merchant-account-secrets'],
  maxAttempts: 5,
  async handle(_payload, { deps, log }) {
    const sealed = await sealPlaintextSecrets(deps);
    if (sealed > 0) log.info({ sealed }, 'sealed merchant account secrets kept in clear');
  },
});
