import { fieldRefusal } from '../../errors/app-error.ts';

/** Why a payment link cannot be paid now (`payRefusal`), as the buyer's page shows it. */
const NOT_PAYABLE = {
  completed: 'This payment link was paid already: a payment link is paid once',
  expired: 'This payment link has expired and can no longer be paid',
  processing: 'A payment through this payment link is in progress: the link cannot be paid again now',
} as const;

/** The 400 of a link that cannot be paid now, about the path's `payment_link_id`. */
export const linkNotPayable = (reason: keyof typeof NOT_PAYABLE) =>
  fieldRefusal('path', '/payment_link_id', NOT_PAYABLE[reason], 'payment_link_not_payable');
