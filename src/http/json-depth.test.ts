import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth.ts';

/** The nesting depth of a parsed value, for comparison. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object') return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

describe('jsonNestsDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings or escaped quotes', () => {
    expect(jsonNestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[{"b":1}]}', 2)).toBe(true);
    expect(jsonNestsDeeperThan(`{"a":"${'['.repeat(500)}\\"${'{'.repeat(500)}"}`, 1)).toBe(false);
    expect(jsonNestsDeeperThan(`${'['.repeat(20_000)}${']'.repeat(20_000)}`, MAX_JSON_DEPTH)).toBe(true);
  });

  it('agrees with the parsed document on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(jsonNestsDeeperThan(text, max)).toBe(depthOf(value) > max);
      }),
    );
  });
});
