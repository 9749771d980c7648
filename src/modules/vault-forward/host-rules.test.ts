import { describe, expect, it } from 'vitest';
import { anyMatches, hostMatches, hostPatternProblem, patternWithin } from './host-rules.ts';

describe('happy', () => {
  it('matches exact names and *.domain patterns (subdomains, not the apex), case-insensitively', () => {
    expect(hostMatches('API.example.com', 'api.example.com')).toBe(true);
    expect(hostMatches('a.b.example.com', '*.example.com')).toBe(true);
    expect(hostMatches('example.com', '*.example.com')).toBe(false);
    expect(hostMatches('badexample.com', '*.example.com')).toBe(false);
    expect(hostMatches('anything.example', '*')).toBe(true);
    expect(anyMatches('x.example', [])).toBe(false);
  });

  it('says whether a config pattern lies within the ceiling', () => {
    expect(patternWithin('api.partner.example', '*.partner.example')).toBe(true);
    expect(patternWithin('*.eu.partner.example', '*.partner.example')).toBe(true);
    expect(patternWithin('*.partner.example', '*.partner.example')).toBe(true);
    expect(patternWithin('*.partner.example', 'api.partner.example')).toBe(false);
    expect(patternWithin('partner.example', '*.partner.example')).toBe(false);
    expect(patternWithin('anything.example', '*')).toBe(true);
  });
});

describe('errors', () => {
  it('refuses what is not a host name, and local names and IP addresses unless private targets are allowed', () => {
    expect(hostPatternProblem('api.example.com', false)).toBeNull();
    expect(hostPatternProblem('https://api.example.com', false)).toMatch(/not a host name/);
    expect(hostPatternProblem('api.example.com:443', false)).toMatch(/not a host name/);
    expect(hostPatternProblem('intranet', false)).toMatch(/fully qualified/);
    expect(hostPatternProblem('*.com', false)).toMatch(/whole top-level domain/);
    expect(hostPatternProblem('127.0.0.1', false)).toMatch(/IP address/);
    expect(hostPatternProblem('[::1]', false)).toMatch(/IP address/);
    expect(hostPatternProblem('localhost', false)).toMatch(/local name/);
    expect(hostPatternProblem('a.localhost', false)).toMatch(/local name/);
    expect(hostPatternProblem('127.0.0.1', true)).toBeNull();
    expect(hostPatternProblem('localhost', true)).toBeNull();
  });
});
