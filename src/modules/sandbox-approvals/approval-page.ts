import { formatAmount } from '../../lib/currencies.ts';
import type { ApprovalPage } from '../transactions/reconcile/buyer-approval.service.ts';
import { escapeHtml, sandboxPage } from './sandbox-page.ts';

/** The simulated provider's hosted page: the amount, and two buttons. No script, no external resource. */
export function renderApprovalPage(page: ApprovalPage, action: string): string {
  const amount = escapeHtml(formatAmount(page.amount, page.currency));
  const body = page.open
    ? openBody(page, amount, escapeHtml(action))
    : `<p>This payment of <strong>${amount}</strong> is ${escapeHtml(page.status.replaceAll('_', ' '))}; nothing is left to approve.</p>`;
  return sandboxPage(
    'Sandbox payment approval',
    body,
    `Simulated provider page of the sandbox. Transaction ${escapeHtml(page.transactionId)}.`,
  );
}

/**
 * What the buyer is asked, by method: a PIX code is paid in a bank app (this page stands in for
 * it: the code, and a button that pays it; unpaid, the simulated provider decides later); a SEPA
 * mandate needs the buyer's IBAN; any other method is approved or declined.
 */
function openBody(page: ApprovalPage, amount: string, action: string): string {
  const decline = `<form method="post" action="${action}/decline"><button type="submit" class="alt">Decline</button></form>`;
  if (page.method === 'pix')
    return `<p>Pay <strong>${amount}</strong> with PIX: scan the QR code or paste this code in a bank app.</p>
<p><code>${escapeHtml(page.pixCode ?? '')}</code></p>
<form method="post" action="${action}/approve"><button type="submit">Pay with the sandbox bank app</button></form>`;
  if (page.method === 'sepa')
    return `<p>Authorise a SEPA Direct Debit of <strong>${amount}</strong> from your bank account.</p>
<form method="post" action="${action}/approve"><label>IBAN <input name="iban" required minlength="15" maxlength="42" autocomplete="off"></label>
<button type="submit">Approve the mandate</button></form>
${decline}`;
  return `<p>Approve a payment of <strong>${amount}</strong> with <strong>${escapeHtml(page.method)}</strong>?</p>
<form method="post" action="${action}/approve"><button type="submit">Approve</button></form>
${decline}`;
}
