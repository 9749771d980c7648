import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { inlineSchemaRefs } from '../helpers/openapi-document.ts';
import { addBuyer, storeCard } from '../helpers/payouts.ts';
import { authorized, merchantWithMockCard } from '../helpers/transactions.ts';
import { answerProblem } from './support/answer-shape.ts';
import { operationsOf, requestArbitrary, type FuzzRequest } from './support/openapi-requests.ts';
import { loadProfile, report } from './support/profile.ts';

/**
 * A seeded fuzzer driven by /openapi.json: for every operation it sends requests in which one
 * location (path, query, header, body field, raw body, content type) carries a hostile value, and
 * checks that every answer is the specified error body or a valid success, never a 5xx or a hang.
 * Replay a run with FUZZ_SEED=<seed printed below>.
 */
const profile = loadProfile();
const HANG_MS = 15_000;

let t: TestApp;
let merchantAccountId = '';
const validIds: Record<string, string> = {};
let foreignCursor = '';

beforeAll(async () => {
  t = await buildTestApp();
  const merchant = await merchantWithMockCard(t);
  merchantAccountId = merchant.merchantAccountId;
  validIds.merchant_account_id = merchantAccountId;
  validIds.payment_service_id = merchant.paymentServiceId;
  validIds.buyer_id = await addBuyer(t, merchantAccountId);
  await addBuyer(t, merchantAccountId);
  validIds.payment_method_id = await storeCard(t, merchantAccountId);
  validIds.transaction_id = (await authorized(t, merchantAccountId)).id;
  const page = await t.request({ method: 'GET', url: '/buyers?limit=1', merchantAccountId });
  foreignCursor = page.json().next_cursor;
  expect(foreignCursor).toBeTruthy();
});
afterAll(async () => t?.close());

async function send(
  request: FuzzRequest,
): Promise<{ status: number; contentType?: string; body: string } | 'hang' | 'unsendable'> {
  const token = await t.keys.token();
  const headers = {
    authorization: `Bearer ${token}`,
    'x-svc-merchant-account-id': merchantAccountId,
    ...request.headers,
  };
  let answer;
  try {
    answer = t.app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers,
      ...(request.payload === undefined ? {} : { payload: request.payload }),
    });
  } catch {
    return 'unsendable';
  }
  const timeout = new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), HANG_MS).unref());
  const result = await Promise.race([answer.catch((error: Error) => error), timeout]);
  if (result === 'hang') return 'hang';
  // light-my-request refuses header values Node's HTTP parser would (CR, LF, non-Latin-1): no request reached the server.
  if (result instanceof Error)
    return /header|Invalid character/i.test(result.message) ? 'unsendable' : { status: 599, body: result.message };
  return {
    status: result.statusCode,
    contentType: result.headers['content-type'] as string | undefined,
    body: result.body,
  };
}

describe('security', () => {
  it('answers every hostile request generated from /openapi.json with the specified body: 0 5xx, 0 hangs', async () => {
    const doc = inlineSchemaRefs((await t.request({ method: 'GET', url: '/openapi.json' })).json());
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(100);
    let tried = 0;
    let unsendable = 0;
    const failures: string[] = [];
    for (const [index, op] of operations.entries()) {
      const requests = fc.sample(requestArbitrary(op, validIds, foreignCursor), {
        seed: profile.fuzzSeed + index,
        numRuns: profile.fuzzRunsPerOperation,
      });
      for (const request of requests) {
        const answer = await send(request);
        if (answer === 'unsendable') {
          unsendable += 1;
          continue;
        }
        tried += 1;
        const problem =
          answer === 'hang'
            ? `no answer within ${HANG_MS} ms`
            : answerProblem(answer.status, answer.contentType, answer.body, op.page);
        if (problem)
          failures.push(
            `${request.operationId} [${request.mutation}] ${request.method} ${request.url.slice(0, 120)}: ${problem} ${answer === 'hang' ? '' : answer.body.slice(0, 200)}`,
          );
      }
    }
    report('hostile input', {
      profile: profile.name,
      seed: profile.fuzzSeed,
      operations: operations.length,
      requests: tried,
      unsendable,
      failures: failures.length,
    });
    if (process.env.FUZZ_FAILURES_FILE)
      (await import('node:fs')).writeFileSync(process.env.FUZZ_FAILURES_FILE, failures.join('\n'));
    expect(failures).toEqual([]);
  });
});
