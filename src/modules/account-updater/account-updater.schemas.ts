import { Type, type Static } from 'typebox';
import type { AccountUpdaterInquiryRow, AccountUpdaterJobRow } from '../../db/schema.ts';
import { DateTime } from '../../http/schemas/common.ts';

/** The most payment methods one job takes. */
export const MAX_PAYMENT_METHODS_PER_JOB = 1000;

export const CreateAccountUpdaterJobBody = Type.Object(
  {
    payment_method_ids: Type.Array(Type.String({ format: 'uuid' }), {
      minItems: 1,
      maxItems: MAX_PAYMENT_METHODS_PER_JOB,
      description:
        'Stored cards to update. Those that do not qualify (unknown, not a card, unsupported scheme, an inquiry in progress) are skipped.',
    }),
  },
  { additionalProperties: false },
);
export type CreateAccountUpdaterJobBody = Static<typeof CreateAccountUpdaterJobBody>;

export const AccountUpdaterInquirySummarySchema = Type.Object(
  {
    type: Type.Literal('account-updater-inquiry'),
    id: Type.String({ format: 'uuid' }),
    payment_method_id: Type.String({ format: 'uuid' }),
  },
  { additionalProperties: false, title: 'AccountUpdaterInquirySummary' },
);

export const AccountUpdaterJobSchema = Type.Object(
  {
    type: Type.Literal('account-updater-job'),
    id: Type.String({ format: 'uuid' }),
    merchant_account_id: Type.String(),
    inquiries: Type.Array(AccountUpdaterInquirySummarySchema),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'AccountUpdaterJob' },
);
export type AccountUpdaterJob = Static<typeof AccountUpdaterJobSchema>;

export function toAccountUpdaterJobResource(
  job: AccountUpdaterJobRow,
  inquiries: readonly AccountUpdaterInquiryRow[],
): AccountUpdaterJob {
  return {
    type: 'account-updater-job',
    id: job.id,
    merchant_account_id: job.merchant_account_id,
    inquiries: inquiries.map((inquiry) => ({
      type: 'account-updater-inquiry',
      id: inquiry.id,
      payment_method_id: inquiry.payment_method_id,
    })),
    created_at: job.created_at.toISOString(),
    updated_at: job.updated_at.toISOString(),
  };
}
