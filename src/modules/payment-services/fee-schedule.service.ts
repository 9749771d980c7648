import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { FeeEntryJson } from '../../db/schema.ts';
import { fieldRefusal, notFound } from '../../errors/app-error.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { MICROS, percentMicros } from './fee-schedule.ts';
import {
  FEE_SCHEDULE_TYPE,
  storedEntry,
  toFeeScheduleResource,
  type FeeSchedule,
  type PutFeeScheduleBody,
} from './fee-schedule.schemas.ts';
import * as repo from './payment-services.repo.ts';
import { changingRoutable, findUsablePaymentService } from './payment-services.service.ts';

/** `GET /payment-services/{id}/fee-schedule`: the schedule (no entries when never set); a deleted service is 404. */
export async function getFeeSchedule(ctx: RequestContext, id: string): Promise<FeeSchedule> {
  const row = await findUsablePaymentService(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('payment service', id);
  return toFeeScheduleResource(row);
}

const label = (entry: FeeEntryJson) =>
  `scheme ${entry.scheme ?? 'any'}, card type ${entry.card_type ?? 'any'}, currency ${entry.currency ?? 'any'}, country ${entry.country ?? 'any'}`;

/** The checks the schema cannot make, each naming the entry and why. */
function checkEntries(entries: readonly FeeEntryJson[]): void {
  const seen = new Map<string, number>();
  for (const [i, entry] of entries.entries()) {
    if (percentMicros(entry.percent) > MICROS)
      throw fieldRefusal(
        'body',
        `/entries/${i}/percent`,
        `entries[${i}].percent is ${entry.percent}: a percentage of the amount is at most 100`,
      );
    const fixed = entry.fixed_fee;
    if (fixed && entry.currency !== null && fixed.currency !== entry.currency)
      throw fieldRefusal(
        'body',
        `/entries/${i}/fixed_fee/currency`,
        `entries[${i}].fixed_fee is in ${fixed.currency} but the entry applies to ${entry.currency} transactions only: a fixed fee counts only in the transaction's currency (no conversion)`,
      );
    const key = label(entry);
    const earlier = seen.get(key);
    if (earlier !== undefined)
      throw fieldRefusal(
        'body',
        `/entries/${i}`,
        `entries[${i}] matches the same transactions as entries[${earlier}] (${key}): give each combination one entry`,
      );
    seen.set(key, i);
  }
}

/** `PUT /payment-services/{id}/fee-schedule`: replaces the whole schedule, audited; routing sees it at once. */
export async function putFeeSchedule(ctx: RequestContext, id: string, body: PutFeeScheduleBody): Promise<FeeSchedule> {
  const entries = body.entries.map(storedEntry);
  checkEntries(entries);
  const merchantAccountId = ctx.merchantAccountId;
  return changingRoutable(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const locked = await repo.findPaymentService(tx, merchantAccountId, id, { forUpdate: true });
      if (!locked || locked.is_deleted) throw notFound('payment service', id);
      const row = await repo.updatePaymentService(tx, merchantAccountId, id, {
        fee_schedule: JSON.stringify(entries),
        fee_schedule_updated_at: new Date(),
      });
      await recordAudit(tx, ctx, 'updated', { type: FEE_SCHEDULE_TYPE, id, name: row.display_name });
      return toFeeScheduleResource(row);
    }),
  );
}
