import { formatAmount } from '../../lib/currencies.ts';
import type { ApprovalPage } from '../transactions/reconcile/buyer-approval.service.ts';
import { escape, sandboxPage } from './sandbox-page.ts';

/** The simulated provider's hosted page: the amount, and two buttons. No script, no external resource. */
export function renderApprovalPage(page: ApprovalPage, action: string): string {
  const amount = escape(formatAmount(page.amount, page.currency));
  const body = page.open
    ? `<p>Approve a payment of <strong>${amount}</strong> with <strong>${escape(page.method)}</strong>?</p>
<form method="post" action="${escape(action)}/approve"><button type="submit">Approve</button></form>
<form method="post" action="${escape(action)}/decline"><button type="submit" class="alt">Decline</button></form>`
    : `<p>This payment of <strong>${amount}</strong> is ${escape(page.status.replaceAll('_', ' '))}; nothing is left to approve.</p>`;
  return sandboxPage(
    'Sandbox payment approval',
    body,
    `Simulated provider page of the sandbox. Transaction ${escape(page.transactionId)}.`,
  );
}
