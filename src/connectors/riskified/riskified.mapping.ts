import type { AntiFraudVerdict } from '../anti-fraud/anti-fraud-connector.ts';

/**
 * Riskified's decision statuses in our terms, a complete table the compiler checks (STYLE E4).
 * The Decide endpoint answers `order.status` approved, declined or submitted (apiref.riskified.com,
 * "Decide"): submitted is an order Riskified reviews before deciding, held for review on our side.
 * Any other value is no decision: `error`, never a rejection (fail open, decision 0139).
 */
export type RiskifiedDecideStatus = 'approved' | 'declined' | 'submitted';

export const DECIDE_STATUS = {
  approved: 'accept',
  declined: 'reject',
  submitted: 'review',
} as const satisfies Record<RiskifiedDecideStatus, AntiFraudVerdict>;

export function verdictOf(status: unknown): AntiFraudVerdict {
  return typeof status === 'string' && Object.hasOwn(DECIDE_STATUS, status)
    ? DECIDE_STATUS[status as RiskifiedDecideStatus]
    : 'error';
}
