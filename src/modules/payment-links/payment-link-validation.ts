import type { Config } from '../../config.ts';
import type { CreatePaymentLinkBody } from './payment-links.schemas.ts';

/** The furthest ahead `expires_at` may lie (docs/payment-links.md). */
export const MAX_LIFETIME_MS = 90 * 24 * 3600 * 1000;
/** `expires_at` when none is given (the contract's default). */
export const DEFAULT_LIFETIME_MS = 24 * 3600 * 1000;

const URL_FIELDS = [
  'merchant_url',
  'merchant_banner_url',
  'merchant_terms_and_conditions_url',
  'merchant_favicon_url',
  'return_url',
] as const;

interface Problem {
  field: string;
  message: string;
}

/**
 * A request-schema failure raised after the schema passed (rules that need the clock or the
 * environment): the error handler renders it as the 422 `{detail: [{loc, msg, type}]}` body.
 */
export class BodyValidationError extends Error {
  readonly validation: Array<{
    instancePath: string;
    keyword: string;
    params: Record<string, never>;
    message: string;
    schemaPath: string;
  }>;
  readonly validationContext = 'body';
  constructor(problems: Problem[]) {
    super(problems.map((p) => `${p.field}: ${p.message}`).join('; '));
    this.validation = problems.map((p) => ({
      instancePath: `/${p.field}`,
      keyword: 'value_error',
      params: {},
      message: p.message,
      schemaPath: '',
    }));
  }
}

function urlProblem(raw: string, production: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Input should be an absolute URL';
  }
  if (url.username || url.password) return 'The URL must not carry credentials';
  if (production && url.protocol !== 'https:') return 'The URL must use https';
  return null;
}

/** Every rule the schema cannot say; all problems at once, as the schema's 422 would list them. */
export function checkCreateBody(config: Config, body: CreatePaymentLinkBody, now: Date): void {
  const problems: Problem[] = [];
  for (const field of URL_FIELDS) {
    const value = body[field];
    const problem = value ? urlProblem(value, config.environment === 'production') : null;
    if (problem) problems.push({ field, message: problem });
  }
  if (body.expires_at) {
    const at = new Date(body.expires_at).getTime();
    if (at <= now.getTime()) problems.push({ field: 'expires_at', message: 'expires_at must be in the future' });
    else if (at > now.getTime() + MAX_LIFETIME_MS)
      problems.push({ field: 'expires_at', message: 'expires_at must be at most 90 days from now' });
  }
  if (body.buyer && body.buyer_id) problems.push({ field: 'buyer_id', message: 'Send buyer or buyer_id, not both' });
  const firstOfSeries = body.payment_source === 'recurring' || body.payment_source === 'installment';
  if (firstOfSeries && !body.store)
    problems.push({
      field: 'store',
      message: `store must be true for a ${body.payment_source} payment source: the buyer's payment starts the series`,
    });
  if (body.intent === 'capture' && body.amount === 0)
    problems.push({ field: 'amount', message: 'amount must be greater than 0 when intent is capture' });
  if (problems.length > 0) throw new BodyValidationError(problems);
}
