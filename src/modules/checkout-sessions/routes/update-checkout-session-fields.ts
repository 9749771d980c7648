import { checkoutSessionFieldsRoute } from './create-checkout-session-fields.ts';

/** The same operation as `createCheckoutSessionFields`, under PUT. */
export const updateCheckoutSessionFields = checkoutSessionFieldsRoute('PUT', 'updateCheckoutSessionFields');
