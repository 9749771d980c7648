import type { FastifyInstance } from 'fastify';
import { approveSandboxApproval, declineSandboxApproval, getSandboxApproval } from './routes/sandbox-approval.ts';
import { completeSandboxChallenge, failSandboxChallenge, getSandboxChallenge } from './routes/sandbox-challenge.ts';
import { chooseSandboxPazeCard, getSandboxPazeCheckout } from './routes/sandbox-paze-checkout.ts';

/**
 * The simulated provider's approval pages for redirect payments and the simulated issuer's 3DS
 * challenge pages for card payments, and the simulated Paze's checkout page (sandbox only). Registered in its own plugin scope so that the
 * HTML forms' `application/x-www-form-urlencoded` posts are accepted here and
 * nowhere else.
 */
export async function sandboxApprovals(app: FastifyInstance): Promise<void> {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    // Only the SEPA mandate's form carries a field (`iban`); the other forms carry nothing.
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  for (const route of [
    getSandboxApproval,
    approveSandboxApproval,
    declineSandboxApproval,
    getSandboxChallenge,
    completeSandboxChallenge,
    failSandboxChallenge,
    getSandboxPazeCheckout,
    chooseSandboxPazeCard,
  ])
    app.route(route);
}
