import { formatAmount } from '../../lib/currencies.ts';
import type { ChallengePage } from '../transactions/three-ds/three-ds-challenge.service.ts';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The simulated issuer's 3DS challenge page: the amount, the card's last digits, and two buttons. No script, no external resource. */
export function renderChallengePage(page: ChallengePage, action: string): string {
  const amount = escape(formatAmount(page.amount, page.currency));
  const body = page.open
    ? `<p>Confirm a payment of <strong>${amount}</strong> with your card <strong>${escape(page.card)}</strong>.</p>
<form method="post" action="${escape(action)}/complete"><button type="submit">Complete</button></form>
<form method="post" action="${escape(action)}/fail"><button type="submit">Fail</button></form>`
    : `<p>This payment of <strong>${amount}</strong> is ${escape(page.status.replaceAll('_', ' '))}; no challenge is waiting.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox 3DS challenge</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto}form{display:inline-block;margin-right:1rem}</style></head>
<body><h1>Sandbox 3DS challenge</h1>${body}<p><small>Simulated issuer page of the sandbox. Transaction ${escape(page.transactionId)}.</small></p></body></html>`;
}
