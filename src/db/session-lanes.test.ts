import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteDialect } from './pglite-dialect.ts';
import { inBackground, isBackground, SessionLanes } from './session-lanes.ts';

describe('SessionLanes', () => {
  it('gives the session to waiting requests before waiting background work, each lane in order', async () => {
    const lanes = new SessionLanes(100, () => 0);
    const order: string[] = [];
    await lanes.acquire(false);
    const waits = [
      lanes.acquire(true).then(() => order.push('b1')),
      lanes.acquire(false).then(() => order.push('f1')),
      lanes.acquire(true).then(() => order.push('b2')),
      lanes.acquire(false).then(() => order.push('f2')),
    ];
    expect(lanes.waiting).toBe(4);
    for (let i = 0; i < 4; i++) {
      lanes.release();
      await Promise.resolve();
    }
    await Promise.all(waits);
    expect(order).toEqual(['f1', 'f2', 'b1', 'b2']);
    lanes.release();
    expect(lanes.busy).toBe(false);
  });

  it('hands the session to background work that has waited the longest allowed, requests still waiting', async () => {
    let now = 0;
    const lanes = new SessionLanes(100, () => now);
    const order: string[] = [];
    await lanes.acquire(false);
    const background = lanes.acquire(true).then(() => order.push('b'));
    const request = lanes.acquire(false).then(() => order.push('f'));
    now = 100;
    lanes.release();
    await background;
    lanes.release();
    await request;
    expect(order).toEqual(['b', 'f']);
  });

  it('frees the session when nobody waits, and gives it at once to the next caller', async () => {
    const lanes = new SessionLanes(100);
    await lanes.acquire(true);
    expect(lanes.busy).toBe(true);
    lanes.release();
    expect(lanes.busy).toBe(false);
    await lanes.acquire(false);
    expect(lanes.busy).toBe(true);
  });

  it('marks what runs inside inBackground, through timers and awaits', async () => {
    expect(isBackground()).toBe(false);
    const seen = await inBackground(
      () =>
        new Promise<boolean>((resolve) => setTimeout(async () => resolve(await Promise.resolve(isBackground())), 1)),
    );
    expect(seen).toBe(true);
    expect(isBackground()).toBe(false);
  });
});

describe('the PGlite driver', () => {
  let client: PGlite;
  let db: Kysely<unknown>;

  beforeAll(async () => {
    client = new PGlite();
    db = new Kysely<unknown>({ dialect: new PGliteDialect(client) });
  });
  afterAll(() => db.destroy());

  it('runs a request waiting behind a transaction before the background statements queued earlier', async () => {
    const order: string[] = [];
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    const transaction = db.transaction().execute(async (tx) => {
      await sql`SELECT 1`.execute(tx);
      started();
      await held;
    });
    await holding;
    const background = inBackground(() =>
      Promise.all([1, 2].map((n) => sql`SELECT ${n}::int AS n`.execute(db).then(() => order.push(`background ${n}`)))),
    );
    const request = sql`SELECT 3`.execute(db).then(() => order.push('request'));
    // Every statement is queued before the transaction lets go.
    await new Promise((resolve) => setImmediate(resolve));
    finish();
    await Promise.all([transaction, background, request]);
    expect(order).toEqual(['request', 'background 1', 'background 2']);
  });
});
