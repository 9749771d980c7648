import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError } from './connector.ts';
import { providerRequest, type ProviderEndpoint } from './provider-http.ts';

let listener: Server;
let port: number;
let connections = 0;
beforeAll(async () => {
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => listener.close(resolve)));

const refusal = async (endpoint: ProviderEndpoint) => {
  const error = await providerRequest(endpoint, 'acme', 'GET', '/payments', {}, undefined).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
};

describe('security', () => {
  it("reaches only the provider's own hosts over https, never an address the SSRF guard refuses, unless the sandbox override is in use", async () => {
    const hosts = ['*.acme.example', 'localhost'];
    expect(
      (await refusal({ baseUrl: `https://other.example:${port}`, allowedHosts: hosts, overridden: false })).message,
    ).toMatch(/other\.example is not one of the provider's hosts/);
    expect(
      (await refusal({ baseUrl: `http://api.acme.example:${port}`, allowedHosts: hosts, overridden: false })).message,
    ).toMatch(/not one of the provider's hosts/);
    // An allowed name that leads to this machine: the guard refuses it before any connection.
    const loopback = await refusal({ baseUrl: `https://localhost:${port}`, allowedHosts: hosts, overridden: false });
    expect(loopback.kind).toBe('unavailable');
    expect(loopback.message).toMatch(/loopback/);
    expect(connections).toBe(0);
    // The control: the sandbox override (CONNECTOR_BASE_URLS, refused in production) does connect.
    await refusal({ baseUrl: `http://127.0.0.1:${port}`, allowedHosts: hosts, overridden: true });
    expect(connections).toBe(1);
  });
});
