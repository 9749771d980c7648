import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { detectScheme, luhnValid } from '../../../lib/card-schemes.ts';
import { runAccountUpdaterJob } from '../run-inquiries.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const NEW_EXPIRY = '4111111111111111';
const NEW_NUMBER = '5555555555554444';
const CLOSED = '378282246310005';
const UNCHANGED = '4242424242424242';
const DISCOVER = '6011111111111117';
const JCB = '3530111333300000';
const UNKNOWN_ID = '018f0000-0000-7000-8000-000000000000';

async function storeCard(merchant: string, number: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    payload: { method: 'card', number, expiration_date: '12/39' },
    merchantAccountId: merchant,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}
const createJob = (merchant: string, ids: string[]) =>
  t.request({
    method: 'POST',
    url: '/account-updater/jobs',
    payload: { payment_method_ids: ids },
    merchantAccountId: merchant,
  });
const getCard = async (merchant: string, id: string) =>
  (await t.request({ method: 'GET', url: `/payment-methods/${id}`, merchantAccountId: merchant })).json();
const inquiriesOf = (merchant: string) =>
  t.deps.db.selectFrom('account_updater_inquiries').selectAll().where('merchant_account_id', '=', merchant).execute();

describe('happy', () => {
  it('creates one job with an inquiry per qualifying card, and enqueues one background job with ids only', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const [visa, discover, jcb] = [
      await storeCard(merchant, UNCHANGED),
      await storeCard(merchant, DISCOVER),
      await storeCard(merchant, JCB),
    ];
    const res = await createJob(merchant, [visa, discover, jcb, UNKNOWN_ID, visa]);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ type: 'account-updater-job', merchant_account_id: merchant });
    expect(body.inquiries.map((i: { payment_method_id: string }) => i.payment_method_id).sort()).toEqual(
      [visa, discover].sort(),
    );
    expect(body.inquiries[0]).toEqual({
      type: 'account-updater-inquiry',
      id: expect.any(String),
      payment_method_id: expect.any(String),
    });
    const jobs = await t.deps.db.selectFrom('jobs').selectAll().where('name', '=', 'run-account-updater').execute();
    const mine = jobs.filter(
      (job) => (job.payload as { merchant_account_id: string }).merchant_account_id === merchant,
    );
    expect(mine).toHaveLength(1);
    expect(mine[0]!.payload).toEqual({ merchant_account_id: merchant, account_updater_job_id: body.id });
  });

  it('applies each outcome after the job runs: new expiry, new number, closed, no change', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const ids = {
      expiry: await storeCard(merchant, NEW_EXPIRY),
      number: await storeCard(merchant, NEW_NUMBER),
      closed: await storeCard(merchant, CLOSED),
      same: await storeCard(merchant, UNCHANGED),
    };
    const before = { number: await getCard(merchant, ids.number), same: await getCard(merchant, ids.same) };
    expect((await createJob(merchant, Object.values(ids))).statusCode).toBe(201);
    await t.deps.queue.drain(t.deps);

    const expiry = await getCard(merchant, ids.expiry);
    expect(expiry).toMatchObject({
      expiration_date: '12/41',
      status: 'succeeded',
      label: '1111',
      has_replacement: false,
    });
    expect(expiry.last_replaced_at).toBeTruthy();

    const number = await getCard(merchant, ids.number);
    expect(number).toMatchObject({ scheme: 'mastercard', expiration_date: '12/39', status: 'succeeded' });
    expect(number.label).not.toBe('4444');
    expect(number.fingerprint).not.toBe(before.number.fingerprint);
    expect(number.last_replaced_at).toBeTruthy();
    const row = await t.deps.db
      .selectFrom('payment_methods')
      .selectAll()
      .where('merchant_account_id', '=', merchant)
      .where('id', '=', ids.number)
      .executeTakeFirstOrThrow();
    const plain = await t.deps.vault.decrypt(
      t.deps.db,
      merchant,
      { ciphertext: row.number_ciphertext!, keyId: row.number_key_id! },
      { table: 'payment_methods', column: 'number', rowId: ids.number },
    );
    expect(plain).not.toBe(NEW_NUMBER);
    expect(luhnValid(plain)).toBe(true);
    expect(detectScheme(plain)).toBe('mastercard');
    expect(plain.slice(-4)).toBe(number.label);
    expect(number.details.bin).toBe(plain.slice(0, 8));

    const closed = await getCard(merchant, ids.closed);
    expect(closed).toMatchObject({ status: 'failed', expiration_date: '12/39', last_replaced_at: null });
    expect(await getCard(merchant, ids.same)).toEqual(before.same);

    const outcomes = Object.fromEntries(
      (await inquiriesOf(merchant)).map((i) => [i.payment_method_id, [i.status, i.outcome]]),
    );
    expect(outcomes).toEqual({
      [ids.expiry]: ['completed', 'expiration_date_updated'],
      [ids.number]: ['completed', 'number_updated'],
      [ids.closed]: ['completed', 'closed'],
      [ids.same]: ['completed', 'no_change'],
    });
    const job = await t.deps.db
      .selectFrom('account_updater_jobs')
      .selectAll()
      .where('merchant_account_id', '=', merchant)
      .executeTakeFirstOrThrow();
    expect(job.status).toBe('completed');
    const entries = await t.deps.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('merchant_account_id', '=', merchant)
      .where('action', '=', 'updated')
      .execute();
    expect(entries.map((e) => e.resource_id).sort()).toEqual([ids.expiry, ids.number, ids.closed].sort());
    expect(
      entries.every(
        (e) =>
          e.user_name === 'System (account updater)' && e.user_id === null && e.operation_id === 'run-account-updater',
      ),
    ).toBe(true);
  });

  it('is idempotent: running the job again changes nothing', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const id = await storeCard(merchant, NEW_EXPIRY);
    const job = (await createJob(merchant, [id])).json();
    await t.deps.queue.drain(t.deps);
    const once = await getCard(merchant, id);
    const log = { info() {}, warn() {}, error() {} };
    await runAccountUpdaterJob(t.deps, merchant, job.id, { deps: t.deps, jobId: 'again', attempt: 2, log });
    expect(await getCard(merchant, id)).toEqual(once);
    expect(once.expiration_date).toBe('12/41');
  });
});

describe('errors', () => {
  it('answers 204 with no body and writes nothing when no payment method qualifies', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const jcb = await storeCard(merchant, JCB);
    const res = await createJob(merchant, [jcb, UNKNOWN_ID]);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await inquiriesOf(merchant)).toEqual([]);
    expect(
      await t.deps.db
        .selectFrom('account_updater_jobs')
        .selectAll()
        .where('merchant_account_id', '=', merchant)
        .execute(),
    ).toEqual([]);
  });

  it('replays 204 for the same idempotency key', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const request = {
      method: 'POST' as const,
      url: '/account-updater/jobs',
      payload: { payment_method_ids: [UNKNOWN_ID] },
      merchantAccountId: merchant,
      headers: { 'idempotency-key': `au-${merchant}` },
    };
    expect((await t.request(request)).statusCode).toBe(204);
    const again = await t.request(request);
    expect(again.statusCode).toBe(204);
    expect(again.body).toBe('');
  });

  it('skips a card with an inquiry in progress, and takes it again once answered', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const first = await storeCard(merchant, UNCHANGED);
    expect((await createJob(merchant, [first])).statusCode).toBe(201);
    expect((await createJob(merchant, [first])).statusCode).toBe(204);
    const second = await storeCard(merchant, DISCOVER);
    const mixed = await createJob(merchant, [first, second]);
    expect(mixed.statusCode).toBe(201);
    expect(mixed.json().inquiries.map((i: { payment_method_id: string }) => i.payment_method_id)).toEqual([second]);
    await t.deps.queue.drain(t.deps);
    expect((await createJob(merchant, [first])).statusCode).toBe(201);
  });

  it('skips a closed card (status failed)', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const id = await storeCard(merchant, CLOSED);
    expect((await createJob(merchant, [id])).statusCode).toBe(201);
    await t.deps.queue.drain(t.deps);
    expect((await createJob(merchant, [id])).statusCode).toBe(204);
  });

  it('refuses an empty list and ids that are not UUIDs', async () => {
    const empty = await createJob('default', []);
    expect(empty.statusCode).toBe(422);
    expect(empty.json().detail[0].loc).toEqual(['body', 'payment_method_ids']);
    expect((await createJob('default', ['nope'])).statusCode).toBe(422);
    expect((await t.request({ method: 'POST', url: '/account-updater/jobs', payload: {} })).statusCode).toBe(422);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({ method: 'POST', url: '/account-updater/jobs', payload: { payment_method_ids: [UNKNOWN_ID] } }),
    scope: 'payment-methods.write',
  });

  it("does not take another merchant account's cards", async () => {
    const owner = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    const id = await storeCard(owner, NEW_EXPIRY);
    expect((await createJob(other, [id])).statusCode).toBe(204);
    expect(await inquiriesOf(owner)).toEqual([]);
    expect(await inquiriesOf(other)).toEqual([]);
  });

  it('never lets a card number reach the jobs table, the updater tables, a log line, an audit entry or a response', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const numbers = [NEW_EXPIRY, NEW_NUMBER, CLOSED, UNCHANGED];
    const ids = [];
    for (const number of numbers) ids.push(await storeCard(merchant, number));
    const bodies = [(await createJob(merchant, ids)).body];
    await t.deps.queue.drain(t.deps);
    const row = await t.deps.db
      .selectFrom('payment_methods')
      .selectAll()
      .where('merchant_account_id', '=', merchant)
      .where('id', '=', ids[1]!)
      .executeTakeFirstOrThrow();
    const replaced = await t.deps.vault.decrypt(
      t.deps.db,
      merchant,
      { ciphertext: row.number_ciphertext!, keyId: row.number_key_id! },
      { table: 'payment_methods', column: 'number', rowId: ids[1]! },
    );
    for (const id of ids)
      bodies.push(
        (await t.request({ method: 'GET', url: `/payment-methods/${id}`, merchantAccountId: merchant })).body,
      );
    const dump = async (table: string) =>
      (
        await sql<{ text: string }>`SELECT row_to_json(x)::text AS text FROM ${sql.table(table)} x`.execute(t.deps.db)
      ).rows.map((r) => r.text);
    const everything = [
      ...bodies,
      ...t.logs,
      ...(await dump('jobs')),
      ...(await dump('audit_logs')),
      ...(await dump('account_updater_jobs')),
      ...(await dump('account_updater_inquiries')),
      ...(await dump('payment_methods')),
    ].join('\n');
    for (const number of [...numbers, replaced]) expect(everything).not.toContain(number);
  });
});
