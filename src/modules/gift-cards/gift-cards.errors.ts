import type { GiftCardFailure } from '../../connectors/gift-cards/gift-card-connector.ts';
import { AppError, duplicateRecord, fieldRefusal } from '../../errors/app-error.ts';

/** Refusals that describe the card itself (the caller can fix them); anything else is the service's fault. */
const CARD_PROBLEMS: Record<string, string> = {
  invalid_gift_card: 'The gift card number or pin is not valid',
  expired_card: 'The gift card has expired',
  inactive_card: 'The gift card is not active',
};

/** The gift card service's refusal the caller can fix: `<problem> (<code>)`, its detail on the field at fault. */
const serviceRefusal = (pointer: string, problem: string, errorCode: string) =>
  fieldRefusal('body', pointer, problem, errorCode, `${problem} (${errorCode})`);

/** 400 naming the problem for a refused card, 502 when the service could not answer. */
export function giftCardRefusal(outcome: GiftCardFailure, pointer = ''): AppError {
  const problem = CARD_PROBLEMS[outcome.errorCode];
  if (!problem)
    return new AppError('bad_gateway', `The gift card service could not check the gift card (${outcome.errorCode})`);
  return serviceRefusal(`${pointer}/number`, problem, outcome.errorCode);
}

/** Issuance refusals the caller can fix, by the field at fault; anything else is the service's fault. */
const ISSUANCE_FIELDS: Record<string, string> = { invalid_amount: '/amount', incorrect_currency: '/currency' };

/** 400 on the field the service refused an issuance for, 502 for any other refusal. */
export function issuanceRefusal(outcome: GiftCardFailure): AppError {
  const pointer = ISSUANCE_FIELDS[outcome.errorCode];
  if (!pointer)
    return new AppError('bad_gateway', `The gift card service could not issue the gift card (${outcome.errorCode})`);
  return serviceRefusal(pointer, outcome.rawErrorMessage ?? outcome.errorCode, outcome.errorCode);
}

const ALREADY_STORED = 'This gift card is already stored';

/** 409 for a card stored already, naming the stored card when it is known (a concurrent copy's may not be). */
export const giftCardAlreadyStored = (existingId: string | undefined) =>
  existingId ? duplicateRecord(existingId, ALREADY_STORED) : new AppError('duplicate_record', ALREADY_STORED);
