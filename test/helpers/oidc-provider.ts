import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/**
 * A real OpenID Connect provider on this machine (`oidc-provider`, the certified implementation)
 * for the single sign-on tests. Its login step signs in whichever account the test chose last
 * (`signInAs`), with the authentication methods (`amr`) given, so a test or a browser goes
 * through the real code flow (authorization, PKCE, code, token, ID token) with no form to fill.
 */
export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  svc_roles?: unknown;
  amr?: string[];
}

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  signInAs(account: TestAccount): void;
  /** Makes the login step deny the request (`error=access_denied` at the return). */
  denyNext(): void;
  close(): Promise<void>;
}

export async function startIdentityProvider(redirectUri: string): Promise<TestIdentityProvider> {
  let account: TestAccount | null = null;
  let deny = false;
  const clientId = 'svc-dashboard';
  const clientSecret = 'a-client-secret-for-the-test-provider-only';
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestAccount>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    // `amr` goes with the openid scope, so every ID token says how the user signed in.
    claims: {
      openid: ['sub', 'amr'],
      email: ['email', 'email_verified'],
      profile: ['name', 'svc_roles'],
    },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, sub: string) {
      const found = accounts.get(sub);
      if (!found) return undefined;
      return {
        accountId: sub,
        async claims() {
          const { amr: _amr, ...claims } = found;
          return claims;
        },
      };
    },
    // First-party client: no consent screen (oidc-provider's documented recipe).
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const client = ctx.oidc.client!;
      const session = ctx.oidc.session!;
      const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId! });
      grant.addOIDCScope('openid email profile');
      grant.addOIDCClaims(['svc_roles']);
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return callback(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      if (deny || !account) {
        deny = false;
        await provider.interactionFinished(req, res, {
          error: 'access_denied',
          error_description: 'denied by the test',
        });
        return;
      }
      accounts.set(account.sub, account);
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: account.sub, ...(account.amr ? { amr: account.amr } : {}) } },
        { mergeWithLastSubmission: false },
      );
      void details;
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });
  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(next) {
      account = next;
    },
    denyNext() {
      deny = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
