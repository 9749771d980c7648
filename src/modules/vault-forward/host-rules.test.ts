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
    expect(hostPatternProblem('api.example.com', 'none')).toBeNull();
    expect(hostPatternProblem('https://api.example.com', 'none')).toMatch(/not a host name/);
    expect(hostPatternProblem('api.example.com:443', 'none')).toMatch(/not a host name/);
    expect(hostPatternProblem('intranet', 'none')).toMatch(/fully qualified/);
    expect(hostPatternProblem('*.com', 'none')).toMatch(/whole top-level domain/);
    expect(hostPatternProblem('127.0.0.1', 'none')).toMatch(/IP address/);
    expect(hostPatternProblem('[::1]', 'none')).toMatch(/IP address/);
    expect(hostPatternProblem('localhost', 'none')).toMatch(/local name/);
    expect(hostPatternProblem('a.localhost', 'none')).toMatch(/local name/);
    expect(hostPatternProblem('127.0.0.1', 'all')).toBeNull();
    expect(hostPatternProblem('localhost', 'all')).toBeNull();
  });

  it('allows loopback addresses and local names, and nothing else private, in the default sandbox (loopback)', () => {
    for (const host of ['127.0.0.1', '127.5.0.1', '[::1]', 'localhost', 'a.localhost', 'api.example.com'])
      expect(hostPatternProblem(host, 'loopback'), host).toBeNull();
    for (const host of ['10.0.0.1', '169.254.169.254', '0.0.0.0', '[fd00::1]', '8.8.8.8'])
      expect(hostPatternProblem(host, 'loopback'), host).toMatch(/VAULT_FORWARD_ALLOW_PRIVATE_URLS=true/);
  });
});
