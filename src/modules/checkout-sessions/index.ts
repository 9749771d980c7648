import type { FastifyInstance } from 'fastify';
import { createCheckoutSession } from './routes/create-checkout-session.ts';
import { createCheckoutSessionFields } from './routes/create-checkout-session-fields.ts';
import { deleteCheckoutSession } from './routes/delete-checkout-session.ts';
import { getCheckoutSessionAcquirer } from './routes/get-checkout-session-acquirer.ts';
import { getCheckoutSession } from './routes/get-checkout-session.ts';
import { updateCheckoutSession } from './routes/update-checkout-session.ts';
import { updateCheckoutSessionFields } from './routes/update-checkout-session-fields.ts';

export async function checkoutSessions(app: FastifyInstance): Promise<void> {
  for (const route of [
    createCheckoutSession,
    getCheckoutSession,
    updateCheckoutSession,
    deleteCheckoutSession,
    createCheckoutSessionFields,
    updateCheckoutSessionFields,
    getCheckoutSessionAcquirer,
  ])
    app.route(route);
}
