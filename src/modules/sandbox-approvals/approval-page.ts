import { formatAmount } from '../../lib/currencies.ts';
import type { ApprovalPage } from '../transactions/reconcile/buyer-approval.service.ts';

export const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The simulated provider's hosted page: the amount, and two buttons. No script, no external resource. */
export function renderApprovalPage(page: ApprovalPage, action: string): string {
  const amount = escape(formatAmount(page.amount, page.currency));
  const body = page.open
    ? `<p>Approve a payment of <strong>${amount}</strong> with <strong>${escape(page.method)}</strong>?</p>
<form method="post" action="${escape(action)}/approve"><button type="submit">Approve</button></form>
<form method="post" action="${escape(action)}/decline"><button type="submit">Decline</button></form>`
    : `<p>This payment of <strong>${amount}</strong> is ${escape(page.status.replaceAll('_', ' '))}; nothing is left to approve.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox payment approval</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto}form{display:inline-block;margin-right:1rem}</style></head>
<body><h1>Sandbox payment approval</h1>${body}<p><small>Simulated provider page of the sandbox. Transaction ${escape(page.transactionId)}.</small></p></body></html>`;
}
