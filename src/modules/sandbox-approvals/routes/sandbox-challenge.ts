import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { failedLookups } from '../../../http/failed-lookups.ts';
import { completeChallenge } from '../../transactions/three-ds/three-ds-challenge-authorize.ts';
import { challengePage, failChallenge } from '../../transactions/three-ds/three-ds-challenge.service.ts';
import { renderChallengePage } from '../challenge-page.ts';
import { Html, html, sandboxOnly, sendBack } from './sandbox-approval.ts';

const Params = Type.Object({
  merchant_account_id: Type.String({ minLength: 1, maxLength: 255 }),
  challenge_id: Type.String({ format: 'uuid' }),
});

export const getSandboxChallenge = defineRoute({
  operationId: 'getSandboxChallenge',
  method: 'GET',
  url: '/sandbox/challenges/:merchant_account_id/:challenge_id',
  scope: null,
  merchantScoped: false,
  tags: ['sandbox'],
  summary: 'The simulated 3DS challenge page of a card payment (sandbox; no token: the buyer opens it)',
  status: 200,
  params: Params,
  response: Html,
  handler: async ({ ctx, params, reply, request }) => {
    sandboxOnly(ctx.deps.config.environment);
    const page = await failedLookups(ctx.deps).guard(request.ip, () =>
      challengePage(ctx.deps, params.merchant_account_id, params.challenge_id),
    );
    html(reply);
    return renderChallengePage(page, request.url.split('?')[0]!);
  },
});

const decide = (completed: boolean) =>
  defineRoute({
    operationId: completed ? 'completeSandboxChallenge' : 'failSandboxChallenge',
    method: 'POST',
    url: `/sandbox/challenges/:merchant_account_id/:challenge_id/${completed ? 'complete' : 'fail'}`,
    scope: null,
    merchantScoped: false,
    idempotent: false,
    tags: ['sandbox'],
    summary: completed ? 'The buyer completes a 3DS challenge (sandbox)' : 'The buyer fails a 3DS challenge (sandbox)',
    description:
      (completed
        ? 'Ends the challenge with the result of the matching 3DS scenario (authenticated by default) and authorizes the payment at once.'
        : 'Ends the challenge as failed: the transaction is declined with three_d_secure_authentication_failed.') +
      ' Then sends the buyer back to the redirect_url of the payment method, if it had one, with transaction_id and transaction_status.',
    status: 200,
    params: Params,
    bodyOptional: true,
    response: Html,
    handler: async ({ ctx, params, reply, request }) => {
      sandboxOnly(ctx.deps.config.environment);
      // The buyer's request names the merchant account in the path (no token).
      const scoped = { ...ctx, merchantAccountId: params.merchant_account_id };
      await failedLookups(ctx.deps).guard(request.ip, () =>
        completed ? completeChallenge(scoped, params.challenge_id) : failChallenge(scoped, params.challenge_id),
      );
      html(reply);
      const page = await challengePage(ctx.deps, params.merchant_account_id, params.challenge_id);
      sendBack(reply, page.redirectUrl, page.transactionId, page.status);
      return renderChallengePage(page, '');
    },
  });

export const completeSandboxChallenge = decide(true);
export const failSandboxChallenge = decide(false);
