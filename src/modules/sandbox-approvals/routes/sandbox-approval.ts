import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { AppError } from '../../../errors/app-error.ts';
import { failedLookups } from '../../../http/failed-lookups.ts';
import { withTransactionResult } from '../../../lib/return-url.ts';
import { approvalPage, recordBuyerApproval } from '../../transactions/reconcile/buyer-approval.service.ts';
import { renderApprovalPage } from '../approval-page.ts';

const Params = Type.Object({
  merchant_account_id: Type.String({ minLength: 1, maxLength: 255 }),
  attempt_id: Type.String({ format: 'uuid' }),
});
/** The approval form: the SEPA mandate's IBAN, when the method is `sepa`. */
const ApprovalForm = Type.Object({ iban: Type.Optional(Type.String({ maxLength: 64 })) });
export const Html = Type.Unsafe<string>({
  description: 'An HTML page',
  content: { 'text/html': { schema: { type: 'string' } } },
});

/** Sandbox only: in production the simulated provider's pages do not exist. */
export function sandboxOnly(environment: string): void {
  if (environment === 'production')
    throw new AppError('not_found', 'Sandbox approval and 3DS challenge pages exist in the sandbox environment only');
}

/**
 * The headers of a script-free HTML page, whose only style is a style sheet of this server (the
 * hosted payment page's: sandbox-page.ts). The sandbox pages carry buttons that move money (Approve,
 * Complete, a Paze card): no site may frame them and overlay its own bait (clickjacking). The buyer
 * reaches them by a top-level redirect to approval_url and leaves by one, so nothing needs a frame.
 * The provider return page is framable (`framable`): a merchant may run the provider's 3DS page in
 * a frame, and its redirect back lands there; the page has no button, it shows the outcome.
 */
export const html = (reply: { headers(h: Record<string, string>): unknown }, options: { framable?: boolean } = {}) =>
  reply.headers({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': `default-src 'none'; style-src 'self'; form-action 'self' http: https:${options.framable ? '' : "; frame-ancestors 'none'"}`,
    ...(options.framable ? {} : { 'x-frame-options': 'DENY' }),
  });

/** Only http(s) return addresses are followed: a `javascript:` URL must never reach the page. */
export const safeReturn = (url: string | null) => (url && /^https?:\/\//i.test(url) ? url : null);

/** Sends the buyer back to the payment method's redirect_url with the transaction's id and status (a Refresh header: the page has no script). */
export function sendBack(
  reply: { headers(h: Record<string, string>): unknown },
  redirectUrl: string | null,
  transactionId: string,
  status: string,
): void {
  const back = safeReturn(redirectUrl);
  if (back) reply.headers({ refresh: `0;url=${withTransactionResult(back, transactionId, status)}` });
}

export const getSandboxApproval = defineRoute({
  operationId: 'getSandboxApproval',
  method: 'GET',
  url: '/sandbox/approvals/:merchant_account_id/:attempt_id',
  scope: null,
  merchantScoped: false,
  tags: ['sandbox'],
  summary: 'The simulated approval page of a redirect payment (sandbox; no token: the buyer opens it)',
  status: 200,
  params: Params,
  response: Html,
  handler: async ({ ctx, params, reply, request }) => {
    sandboxOnly(ctx.deps.config.environment);
    const page = await failedLookups(ctx.deps).guard(request.ip, () =>
      approvalPage(ctx.deps, params.merchant_account_id, params.attempt_id),
    );
    html(reply);
    return renderApprovalPage(page, request.url.split('?')[0]!);
  },
});

const decide = (approved: boolean) =>
  defineRoute({
    operationId: approved ? 'approveSandboxApproval' : 'declineSandboxApproval',
    method: 'POST',
    url: `/sandbox/approvals/:merchant_account_id/:attempt_id/${approved ? 'approve' : 'decline'}`,
    scope: null,
    merchantScoped: false,
    idempotent: false,
    tags: ['sandbox'],
    summary: approved
      ? 'The buyer approves a redirect payment (sandbox)'
      : 'The buyer declines a redirect payment (sandbox)',
    description:
      'Records the choice, brings the transaction up to date at once and sends the buyer back to the redirect_url of the payment method.',
    status: 200,
    params: Params,
    body: ApprovalForm,
    bodyOptional: true,
    response: Html,
    handler: async ({ ctx, params, body, reply, request }) => {
      sandboxOnly(ctx.deps.config.environment);
      const page = await failedLookups(ctx.deps).guard(request.ip, () =>
        recordBuyerApproval(ctx.deps, params.merchant_account_id, params.attempt_id, approved, {
          iban: body?.iban,
        }),
      );
      html(reply);
      sendBack(reply, page.redirectUrl, page.transactionId, page.status);
      return renderApprovalPage(page, '');
    },
  });

export const approveSandboxApproval = decide(true);
export const declineSandboxApproval = decide(false);
