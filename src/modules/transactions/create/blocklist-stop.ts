import type { RequestContext } from '../../../context.ts';
import type { TransactionActionJson, TransactionRow } from '../../../db/schema-transactions.ts';
import type { Executor } from '../../../db/transaction.ts';
import { checkBlocklist, type BlocklistFacts } from '../../blocklist-entries/blocklist-check.service.ts';
import type { Applied } from '../outcomes.ts';
import { flowOf } from '../routing/transaction-facts.ts';
import { intentOutcome, nextStatus } from '../transaction-status.ts';
import type { ResolvedInstrument } from './instrument.ts';

/** The error code of a payment a blocklist entry stopped (docs/risk.md; `flow_`: decided before any provider, decision 0135). */
export const BLOCKLISTED = 'flow_blocklisted';

/** What a blocklist match changes: the stop, and its decision-trace entry. */
export interface BlocklistStop {
  stop: (row: TransactionRow) => Applied;
  action: TransactionActionJson;
}

interface BuyerFacts {
  external_identifier?: unknown;
  billing_details?: { email_address?: string | null; address?: { country?: string | null } | null } | null;
}

const DIGITS = '0123456789';

/** What the blocklist looks at: the card (fingerprint, leading digits), the buyer's e-mail and identifier, the IP, the countries. */
export function blocklistFacts(
  instrument: ResolvedInstrument | null,
  country: string | null,
  buyer: BuyerFacts | null,
  buyerExternalIdentifier: string | null,
  ipAddress: string | null,
): BlocklistFacts {
  const number = instrument?.cardNumber ?? null;
  const leading = number ? number.slice(0, 8) : (instrument?.bin ?? null);
  const billingCountry = buyer?.billing_details?.address?.country ?? null;
  const email = buyer?.billing_details?.email_address ?? null;
  return {
    cardFingerprint: instrument?.fingerprint ?? null,
    cardDigits: leading && [...leading].every((c) => DIGITS.includes(c)) ? leading : null,
    emailAddress: email ? email.trim().toLowerCase() : null,
    ipAddress,
    countries: [
      ...(country ? [{ field: 'country', code: country.toUpperCase() }] : []),
      ...(billingCountry ? [{ field: 'billing_address.country', code: billingCountry.toUpperCase() }] : []),
    ],
    buyerExternalIdentifier,
  };
}

/**
 * Checks the transaction against the merchant account's blocklist (from the process's cache: no
 * database round trip once warm). A match stops the transaction before routing and any connector
 * call: declined with `flow_blocklisted`, and a `decline-early` action naming the entry, its type
 * and which fact matched, never the value.
 */
export async function blocklistStop(
  db: Executor,
  ctx: RequestContext,
  instrument: ResolvedInstrument | null,
  facts: BlocklistFacts,
): Promise<BlocklistStop | null> {
  const match = await checkBlocklist(db, ctx.deps, ctx.merchantAccountId, facts);
  if (!match) return null;
  const entry = { id: match.id, value_type: match.valueType, field: match.field };
  const description = `Blocked by the blocklist entry ${match.id} (${match.valueType}, matched on ${match.field})`;
  return {
    action: {
      id: 'decline-early',
      flow: instrument ? flowOf(instrument) : 'non-card-transaction',
      rule_id: 'blocklist',
      created_at: new Date().toISOString(),
      outcome: { error_code: BLOCKLISTED, blocklist_entry: entry },
    },
    stop: (row) => {
      const status = nextStatus(row.status, 'authorization_declined');
      return {
        attemptStatus: 'declined',
        eventName: 'transaction-updated-status',
        patch: {
          status,
          intent_outcome: intentOutcome(row.intent, status),
          error_code: BLOCKLISTED,
          raw_response_description: description,
        },
      };
    },
  };
}
