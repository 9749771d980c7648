import { formatAmount } from '../../lib/currencies.ts';
import type { ApprovalPage } from '../transactions/reconcile/buyer-approval.service.ts';
import { escapeHtml, sandboxPage } from './sandbox-page.ts';

/** The simulated provider's hosted page: the amount, and two buttons. No script, no external resource. */
export function renderApprovalPage(page: ApprovalPage, action: string): string {
  const amount = escapeHtml(formatAmount(page.amount, page.currency));
  const body = page.open
    ? `<p>Approve a payment of <strong>${amount}</strong> with <strong>${escapeHtml(page.method)}</strong>?</p>
<form method="post" action="${escapeHtml(action)}/approve"><button type="submit">Approve</button></form>
<form method="post" action="${escapeHtml(action)}/decline"><button type="submit" class="alt">Decline</button></form>`
    : `<p>This payment of <strong>${amount}</strong> is ${escapeHtml(page.status.replaceAll('_', ' '))}; nothing is left to approve.</p>`;
  return sandboxPage(
    'Sandbox payment approval',
    body,
    `Simulated provider page of the sandbox. Transaction ${escapeHtml(page.transactionId)}.`,
  );
}
