import { describe, expect, it } from 'vitest';
import { privateTargetsPolicy, resolveDeliveryAddress, urlFormProblem } from './url-safety.ts';

const production = { production: true, allowPrivate: false };
const sandboxOpen = { production: false, allowPrivate: true };
/** The sandbox's default (`*_ALLOW_PRIVATE_URLS` unset): loopback only. */
const sandboxDefault = privateTargetsPolicy(false, 'loopback', 'WEBHOOK_ALLOW_PRIVATE_URLS');

describe('happy', () => {
  it('accepts public https URLs, and http/loopback in a sandbox that allows them', () => {
    expect(urlFormProblem('https://hooks.example.com/svc', production)).toBeNull();
    expect(urlFormProblem('http://127.0.0.1:9000/hook', sandboxOpen)).toBeNull();
  });

  it.each([
    'http://127.0.0.1:9000/hook',
    'http://127.1.2.3/',
    'https://[::1]:8443/',
    'http://localhost:3000/in',
    'http://app.localhost./',
    'https://[::ffff:127.0.0.1]/',
  ])('accepts the loopback %s in the default sandbox', (url) => expect(urlFormProblem(url, sandboxDefault)).toBeNull());

  it('connects to the loopback address a name resolves to in the default sandbox', async () => {
    expect(await resolveDeliveryAddress('http://127.0.0.1:1/', sandboxDefault)).toEqual({
      ok: true,
      address: '127.0.0.1',
      family: 4,
    });
  });
});

describe('security', () => {
  it.each([
    'http://hooks.example.com/',
    'https://127.0.0.1/',
    'https://10.1.2.3/',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/',
    'https://[::ffff:192.168.1.1]/',
    'https://localhost/',
    'https://user:pw@example.com/',
    'not a url',
  ])('refuses %s in production', (url) => expect(urlFormProblem(url, production)).not.toBeNull());

  // Found by the SSRF suite (test/reliability/ssrf): notations the first list let through.
  it.each([
    'https://[::ffff:0:7f00:1]/',
    'https://[fec0::1]/',
    'https://[100::1]/',
    'https://[2002:7f00:1::]/',
    'https://[64:ff9b:1::a00:1]/',
    'https://localhost./',
    'https://a.localhost../',
  ])('refuses %s in production', (url) =>
    expect(urlFormProblem(url, production)).toBe(
      'url must not point to a loopback, private, link-local or reserved address',
    ),
  );

  it.each([
    'http://10.0.0.1/',
    'https://10.0.0.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://0.0.0.0/',
    'https://[::ffff:10.0.0.1]/',
    'https://[::ffff:0:7f00:1]/',
    'http://hooks.example.com/',
  ])('refuses %s in the default sandbox, naming the opt-in', (url) =>
    expect(urlFormProblem(url, sandboxDefault)).toContain('WEBHOOK_ALLOW_PRIVATE_URLS=true'),
  );

  it('refuses loopback in a sandbox that says none (WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
    expect(
      urlFormProblem('https://127.0.0.1/', privateTargetsPolicy(false, 'none', 'WEBHOOK_ALLOW_PRIVATE_URLS')),
    ).toContain('loopback');
  });

  it('production refuses loopback whatever the setting says', () => {
    for (const targets of ['none', 'loopback', 'all'] as const) {
      expect(
        urlFormProblem('https://127.0.0.1/', privateTargetsPolicy(true, targets, 'WEBHOOK_ALLOW_PRIVATE_URLS')),
      ).not.toBeNull();
      expect(
        urlFormProblem('https://localhost/', privateTargetsPolicy(true, targets, 'WEBHOOK_ALLOW_PRIVATE_URLS')),
      ).not.toBeNull();
    }
  });

  it('production ignores the sandbox allowance', () => {
    expect(urlFormProblem('http://127.0.0.1/', { production: true, allowPrivate: true })).not.toBeNull();
  });

  it('checks what a host name resolves to', async () => {
    expect(await resolveDeliveryAddress('https://localhost.localdomain.invalid/', production)).toMatchObject({
      ok: false,
    });
    expect(await resolveDeliveryAddress('https://127.0.0.1/', production)).toMatchObject({ ok: false });
    expect(await resolveDeliveryAddress('http://127.0.0.1:1/', sandboxOpen)).toEqual({
      ok: true,
      address: '127.0.0.1',
      family: 4,
    });
  });
});
