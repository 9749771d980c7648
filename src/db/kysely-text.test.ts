import { CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compiledQuery, TextCache } from './kysely-text.ts';

describe('kysely-text', () => {
  it('makes the compiled query CompiledQuery.raw makes, the query id aside', () => {
    const cache = new TextCache();
    const ours = compiledQuery(
      cache.get('k', () => 'select $1'),
      [1],
    );
    const { queryId: _ours, ...rest } = ours;
    const { queryId: _theirs, ...expected } = CompiledQuery.raw('select $1', [1]);
    expect(rest).toEqual(expected);
    // Each statement its own query id, as Kysely gives.
    expect(
      compiledQuery(
        cache.get('k', () => 'select $1'),
        [2],
      ).queryId,
    ).not.toBe(ours.queryId);
  });

  it('builds a text once per key, and keeps at most its bound', () => {
    const cache = new TextCache(2);
    let built = 0;
    const build = (text: string) => () => (built++, text);
    const first = cache.get('a', build('select 1'));
    expect(cache.get('a', build('never built'))).toBe(first);
    cache.get('b', build('select 2'));
    expect(built).toBe(2);
    // Past the bound: built each time, still right.
    expect(cache.get('c', build('select 3')).sql).toBe('select 3');
    expect(cache.get('c', build('select 3')).sql).toBe('select 3');
    expect(built).toBe(4);
  });
});
