import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { authorized, card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { ANTI_FRAUD_REVIEW_CARD } from '../../../connectors/anti-fraud/mock-anti-fraud.ts';

/** Manual anti-fraud review through HTTP (decision 0139), with the sandbox service's review card. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const post = (m: string, url: string, payload?: object) =>
  t.request({ method: 'POST', url, merchantAccountId: m, ...(payload ? { payload } : {}) });

async function heldForReview(extra: Record<string, unknown> = {}, status = 'authorization_succeeded') {
  const { merchantAccountId: m } = await merchantWithMockCard(t);
  const txn = await authorized(t, m, { payment_method: card(ANTI_FRAUD_REVIEW_CARD), ...extra });
  expect(txn).toMatchObject({ status, pending_review: true, anti_fraud_decision: 'review' });
  return { m, txn };
}

describe('happy', () => {
  it('approving ends the review; the authorization stands and captures; the decision stays review', async () => {
    const { m, txn } = await heldForReview();
    const held = await post(m, `/transactions/${txn.id}/capture`, {});
    expect(held.statusCode).toBe(400);
    const res = await post(m, `/transactions/${txn.id}/review/approve`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: txn.id,
      status: 'authorization_succeeded',
      pending_review: false,
      anti_fraud_decision: 'review',
    });
    const listed = await t.request({ method: 'GET', url: '/transactions?pending_review=true', merchantAccountId: m });
    expect(listed.json().items).toEqual([]);
    expect((await post(m, `/transactions/${txn.id}/capture`, {})).statusCode).toBe(200);
  });

  it('declining ends the review and voids the authorization', async () => {
    const { m, txn } = await heldForReview();
    const res = await post(m, `/transactions/${txn.id}/review/decline`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: txn.id,
      status: 'authorization_voided',
      pending_review: false,
      anti_fraud_decision: 'review',
    });
    const audit = await t.request({ method: 'GET', url: '/audit-logs', merchantAccountId: m });
    const actions = audit.json().items.filter((i: { resource: { id: string } }) => i.resource.id === txn.id);
    expect(actions.map((i: { action: string }) => i.action).sort()).toEqual(['created', 'updated', 'voided']);
  });
});

describe('errors', () => {
  it('a transaction not pending review is 400, and so is a second decision', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const plain = await authorized(t, m);
    for (const op of ['approve', 'decline']) {
      const res = await post(m, `/transactions/${plain.id}/review/${op}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('The transaction is not pending a manual anti-fraud review');
    }
    const { m: m2, txn } = await heldForReview();
    expect((await post(m2, `/transactions/${txn.id}/review/approve`)).statusCode).toBe(200);
    expect((await post(m2, `/transactions/${txn.id}/review/decline`)).statusCode).toBe(400);
  });

  it('a captured transaction pending review (captured before decision 0144) cannot be declined: refund it', async () => {
    const { m, txn } = await heldForReview();
    expect((await post(m, `/transactions/${txn.id}/review/approve`)).statusCode).toBe(200);
    expect((await post(m, `/transactions/${txn.id}/capture`, {})).statusCode).toBe(200);
    // Such a row is only left by the code before the hold.
    await t.deps.db.updateTable('transactions').set({ pending_review: true }).where('id', '=', txn.id).execute();
    const res = await post(m, `/transactions/${txn.id}/review/decline`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('refund it instead');
    const read = await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m });
    expect(read.json()).toMatchObject({ pending_review: true, status: 'capture_succeeded' });
  });

  it('an authorization still open (processing, awaiting the buyer) cannot be reviewed yet: 400', async () => {
    const { m, txn } = await heldForReview();
    for (const status of ['processing', 'buyer_approval_pending'] as const) {
      await t.deps.db.updateTable('transactions').set({ status }).where('id', '=', txn.id).execute();
      for (const op of ['approve', 'decline']) {
        const res = await post(m, `/transactions/${txn.id}/review/${op}`);
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toContain('has not completed yet');
      }
    }
    const read = await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m });
    expect(read.json().pending_review).toBe(true);
  });

  it('an unknown transaction is 404', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const res = await post(m, '/transactions/0190f1c2-0000-7000-8000-000000000009/review/approve');
    expect(res.statusCode).toBe(404);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    scope: 'transactions.write',
    request: () => ({ method: 'POST', url: '/transactions/0190f1c2-0000-7000-8000-000000000009/review/approve' }),
  });

  it('another merchant account cannot end the review (404) and the transaction stays pending', async () => {
    const { txn } = await heldForReview();
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    expect((await post(other, `/transactions/${txn.id}/review/decline`)).statusCode).toBe(404);
    expect((await post(other, `/transactions/${txn.id}/review/approve`)).statusCode).toBe(404);
  });
});
