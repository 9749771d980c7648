import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { failedLookups } from '../../../http/failed-lookups.ts';
import { formatAmount } from '../../../lib/currencies.ts';
import { recordProviderReturn, type ApprovalPage } from '../../transactions/reconcile/buyer-approval.service.ts';
import { html, Html, safeReturn } from '../../sandbox-approvals/routes/sandbox-approval.ts';

const Params = Type.Object({
  merchant_account_id: Type.String({ minLength: 1, maxLength: 255 }),
  attempt_id: Type.String({ format: 'uuid' }),
});
/** Whatever the provider appended (Adyen: `redirectResult`); bounded in number and size. */
const Query = Type.Object({}, { additionalProperties: Type.String({ maxLength: 8192 }), maxProperties: 20 });

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function render(page: ApprovalPage, target: string | null): string {
  const amount = escapeHtml(formatAmount(page.amount, page.currency));
  const next = target ? `<p><a href="${escapeHtml(target)}">Continue</a></p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Payment</title></head>
<body><p>The payment of <strong>${amount}</strong> is ${escapeHtml(page.status.replaceAll('_', ' '))}.</p>${next}</body></html>`;
}

export const returnFromProvider = defineRoute({
  operationId: 'returnFromProvider',
  method: 'GET',
  url: '/connector-returns/:merchant_account_id/:attempt_id',
  scope: null,
  merchantScoped: false,
  tags: ['transactions'],
  summary:
    "The buyer comes back from a payment service's own page (3DS redirect); no token: the buyer's browser opens it",
  description:
    'Completes the payment with the parameters the payment service appended, then sends the buyer on to the redirect_url of the payment method with transaction_id and transaction_status.',
  status: 200,
  params: Params,
  querystring: Query,
  response: Html,
  handler: async ({ ctx, params, query, reply, request }) => {
    // No token: the random attempt id is the secret, and an unknown one is a failed lookup of the client address.
    const page = await failedLookups(ctx.deps).guard(request.ip, () =>
      recordProviderReturn(
        ctx.deps,
        params.merchant_account_id,
        params.attempt_id,
        query as Record<string, string>,
        ctx.log,
      ),
    );
    html(reply, { framable: true });
    const back = safeReturn(page.redirectUrl);
    const target = back
      ? `${back}${back.includes('?') ? '&' : '?'}transaction_id=${page.transactionId}&transaction_status=${page.status}`
      : null;
    if (target) reply.headers({ refresh: `0;url=${target}` });
    return render(page, target);
  },
});
