import { describe, expect, it } from 'vitest';
import { resolveDeliveryAddress, urlFormProblem } from './url-safety.ts';

const production = { production: true, allowPrivate: false };
const sandboxOpen = { production: false, allowPrivate: true };

describe('happy', () => {
  it('accepts public https URLs, and http/loopback in a sandbox that allows them', () => {
    expect(urlFormProblem('https://hooks.example.com/svc', production)).toBeNull();
    expect(urlFormProblem('http://127.0.0.1:9000/hook', sandboxOpen)).toBeNull();
  });
});

describe('security', () => {
  it.each(['http://hooks.example.com/', 'https://127.0.0.1/', 'https://10.1.2.3/', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/', 'https://[::ffff:192.168.1.1]/', 'https://localhost/', 'https://user:pw@example.com/', 'not a url'])(
    'refuses %s in production',
    (url) => expect(urlFormProblem(url, production)).not.toBeNull(),
  );

  // Found by the SSRF suite (test/reliability/ssrf): notations the first list let through.
  it.each(['https://[::ffff:0:7f00:1]/', 'https://[fec0::1]/', 'https://[100::1]/', 'https://[2002:7f00:1::]/', 'https://[64:ff9b:1::a00:1]/', 'https://localhost./', 'https://a.localhost../'])(
    'refuses %s in production',
    (url) => expect(urlFormProblem(url, production)).toBe('url must not point to a loopback, private, link-local or reserved address'),
  );

  it('production ignores the sandbox allowance', () => {
    expect(urlFormProblem('http://127.0.0.1/', { production: true, allowPrivate: true })).not.toBeNull();
  });

  it('checks what a host name resolves to', async () => {
    expect(await resolveDeliveryAddress('https://localhost.localdomain.invalid/', production)).toMatchObject({ ok: false });
    expect(await resolveDeliveryAddress('https://127.0.0.1/', production)).toMatchObject({ ok: false });
    expect(await resolveDeliveryAddress('http://127.0.0.1:1/', sandboxOpen)).toEqual({ ok: true, address: '127.0.0.1', family: 4 });
  });
});
