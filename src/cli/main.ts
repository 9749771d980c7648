import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import type { Runtime } from '../deps.ts';
import { ApiClient } from './api-client.ts';
import { mintToken, readKeyFile } from './token.ts';
import { TRIGGERS } from './trigger.ts';

/** The key file the server writes on its first start (see bootstrap.ts). */
const BOOTSTRAP_KEY_FILE = 'private_key.pem';

// Database and HTTP modules load only for the commands that need them: `token` and `--help` stay fast.
const keyPairs = () => import('../modules/api-key-pairs/api-key-pairs.service.ts');

const HELP: Record<string, string> = {
  main: `Usage: svc <command> [options]

Commands:
  serve      run the HTTP API (and the job worker unless RUN_WORKER=false)
  migrate    apply database migrations and exit
  token      mint a bearer token from a private key file
  keys       create, list or revoke API key pairs
  openapi    print the OpenAPI document
  listen     receive the sandbox's webhooks on this machine, verified and printed live
  trigger    make the sandbox produce a webhook event of a kind (real calls on mock-card)
  wallet-token  print a sandbox Apple Pay, Google Pay or Paze test token
  settlements   ingest a payment service's settlement reports from its provider now

Configuration comes from environment variables (see README). Run "svc <command> --help" for details.`,
  serve: `Usage: svc serve

Starts the API on HOST:PORT (default 127.0.0.1:8080) with the database of DATABASE_URL, or the
embedded PGlite database in DATA_DIR (default ./data). Applies migrations, and on an empty database
creates the merchant account "default" and a full-access key pair whose private key is written to
DATA_DIR/${BOOTSTRAP_KEY_FILE}. Stops gracefully on SIGTERM or SIGINT.`,
  migrate: `Usage: svc migrate

Applies pending migrations to DATABASE_URL (or the embedded database in DATA_DIR) and exits.
Safe to run while other processes start: migrations take an advisory lock.`,
  token: `Usage: svc token [--key FILE] [--scope SCOPE]... [--lifetime SECONDS] [--merchant-account ID]

Prints a bearer token (ES512 JWT) signed with the private key FILE (default DATA_DIR/${BOOTSTRAP_KEY_FILE}).
  --key FILE              PEM private key (PKCS#8 or SEC1) of a registered key pair
  --scope SCOPE           a scope to grant, repeatable (default: *.read and *.write)
  --lifetime SECONDS      token lifetime (default 3600)
  --merchant-account ID   default merchant account of the token's requests
  --embed JSON            an embed claim (use with --scope embed)

Example:
  curl -H "Authorization: Bearer $(svc token)" http://127.0.0.1:8080/merchant-accounts`,
  keys: `Usage: svc keys <create|list|revoke> [options]

  svc keys create [--name NAME] [--merchant-account ID] [--out FILE]
      generates an ES512 key pair, registers its public key and writes the private key PEM to FILE
      (mode 0600, never overwritten) or prints it; shows the kid (JWK thumbprint)
  svc keys list
      lists key pairs that are not deleted: id, kid, name, merchant account, state
  svc keys rotate-vault
      re-wraps every vault data key under the current master key. With VAULT_MASTER_KEY: set the new
      key there and the old one in VAULT_PREVIOUS_MASTER_KEYS on every server, then run this; remove
      the old key afterwards. Sandbox without VAULT_MASTER_KEY: generates a new key file in DATA_DIR
      and keeps the old one in vault_master_key.previous until the re-wrap is done
  svc keys revoke <ID|KID>
      disables a key pair; every server process rejects its tokens within 5 seconds

With the embedded database, stop the server first: PGlite allows one process at a time.`,
  listen: `Usage: svc listen [--forward-to URL] [--port N] [--host ADDRESS] [--json] [--url URL] [--key FILE] [--merchant-account ID]

Subscribes a temporary webhook subscription of the merchant account to a receiver this command
serves on HOST:PORT (default 127.0.0.1, any free port), verifies each delivery's signature, prints
the events as they arrive and deletes the subscription on exit (Ctrl-C, SIGTERM).
  --forward-to URL        also POST each verified event, headers and raw body unchanged, to URL
                          (your app; it can check the signature with the secret printed at start)
  --json                  print each event's whole envelope as one JSON line
  --url URL               the server (default PUBLIC_URL, http://127.0.0.1:8080)
  --key FILE              private key of a key pair (default DATA_DIR/${BOOTSTRAP_KEY_FILE})
  --merchant-account ID   whose events (default: default)
The server must allow local receivers: WEBHOOK_ALLOW_PRIVATE_URLS=true (sandbox only).`,
  trigger: `Usage: svc trigger <event kind> [--url URL] [--key FILE] [--merchant-account ID]

Makes the sandbox produce an event of that kind through real API calls on a mock-card payment
service of the merchant account (created if it has none): authorize, capture, void, refund, store
or delete a card, pay out. Run "svc listen" in another terminal to see the events. Kinds:
  ${Object.keys(TRIGGERS).join(', ')}`,
};

async function printHelp(topic: string): Promise<number> {
  const text = topic === 'wallet-token' ? (await import('./wallet-token.ts')).WALLET_TOKEN_HELP : topic === 'settlements' ? (await import('./settlements.ts')).SETTLEMENTS_HELP : HELP[topic];
  process.stdout.write(`${text ?? HELP.main}\n`);
  return 0;
}

async function withRuntime<T>(config: Config, fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const { createRuntime } = await import('../deps.ts');
  const runtime = await createRuntime(config);
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
  }
}

async function tokenCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      key: { type: 'string' },
      scope: { type: 'string', multiple: true },
      lifetime: { type: 'string', default: '3600' },
      'merchant-account': { type: 'string' },
      embed: { type: 'string' },
    },
  });
  const lifetime = Number(values.lifetime);
  if (!Number.isInteger(lifetime) || lifetime < 1) throw new Error('--lifetime must be a positive whole number of seconds');
  const token = await mintToken({
    privateKeyPem: readKeyFile(values.key ?? path.join(config.dataDir, BOOTSTRAP_KEY_FILE)),
    scopes: values.scope && values.scope.length > 0 ? values.scope : ['*.read', '*.write'],
    lifetimeSeconds: lifetime,
    ...(values['merchant-account'] ? { merchantAccountId: values['merchant-account'] } : {}),
    ...(values.embed ? { embed: JSON.parse(values.embed) as Record<string, unknown> } : {}),
  });
  process.stdout.write(`${token}\n`);
  return 0;
}

async function keysCommand(config: Config, args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'create') {
    const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, 'merchant-account': { type: 'string' }, out: { type: 'string' } } });
    if (values.out && fs.existsSync(values.out)) throw new Error(`${values.out} already exists; it is never overwritten`);
    const { createKeyPair } = await keyPairs();
    const created = await withRuntime(config, (rt) =>
      createKeyPair(rt.deps, { displayName: values.name ?? 'cli', merchantAccountId: values['merchant-account'] ?? null }),
    );
    if (values.out) {
      fs.writeFileSync(values.out, created.privateKeyPem, { mode: 0o600, flag: 'wx' });
      process.stdout.write(`key pair ${created.id} created; kid ${created.thumbprint}; private key written to ${values.out}\n`);
    } else {
      process.stderr.write(`key pair ${created.id} created; kid ${created.thumbprint}. The private key below is shown once:\n`);
      process.stdout.write(created.privateKeyPem);
    }
    return 0;
  }
  if (action === 'list') {
    const { listKeyPairs } = await keyPairs();
    const pairs = await withRuntime(config, (rt) => listKeyPairs(rt.deps));
    const rows = pairs.map((p) => [p.id, p.kid, p.display_name, p.merchant_account_id ?? '(all)', p.active ? 'active' : 'revoked', p.created_at]);
    const header = ['ID', 'KID', 'NAME', 'MERCHANT ACCOUNT', 'STATE', 'CREATED'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows]) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ')}\n`);
    return 0;
  }
  if (action === 'rotate-vault') {
    const { rotateVault } = await import('./rotate-vault.ts');
    process.stdout.write(`${await rotateVault(config)}\n`);
    return 0;
  }
  if (action === 'revoke') {
    const target = rest[0];
    if (!target) throw new Error('svc keys revoke needs the id or kid of a key pair');
    const { revokeKeyPair } = await keyPairs();
    const revoked = await withRuntime(config, (rt) => revokeKeyPair(rt.deps, target));
    process.stdout.write(`key pair ${revoked.id} (kid ${revoked.kid}) revoked\n`);
    return 0;
  }
  return printHelp('keys');
}

const TARGET_OPTIONS = { url: { type: 'string' }, key: { type: 'string' }, 'merchant-account': { type: 'string' } } as const;

function apiClient(config: Config, values: { url?: string; key?: string; 'merchant-account'?: string }): ApiClient {
  return new ApiClient({
    baseUrl: values.url ?? config.publicUrl,
    privateKeyPem: readKeyFile(values.key ?? path.join(config.dataDir, BOOTSTRAP_KEY_FILE)),
    merchantAccountId: values['merchant-account'] ?? null,
  });
}

const out = (line: string) => void process.stdout.write(`${line}\n`);
const err = (line: string) => void process.stderr.write(`${line}\n`);

async function listenCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { ...TARGET_OPTIONS, 'forward-to': { type: 'string' }, port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' }, json: { type: 'boolean', default: false } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be a whole number between 0 and 65535');
  if (values['forward-to'] && !/^https?:\/\//.test(values['forward-to'])) throw new Error('--forward-to must be an http:// or https:// URL');
  // Exit cleanly on the first signal (the subscription is deleted); a second one is left to Node.
  const stop = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  const { listen } = await import('./listen.ts');
  return listen({ client: apiClient(config, values), host: values.host, port, forwardTo: values['forward-to'] ?? null, json: values.json, out, err }, stop);
}

async function triggerCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: TARGET_OPTIONS, allowPositionals: true });
  if (positionals.length !== 1) return printHelp('trigger');
  const { trigger } = await import('./trigger.ts');
  return trigger(apiClient(config, values), positionals[0]!, out, err);
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...args] = argv;
  if (command === 'help' || command === '--help' || command === '-h') return await printHelp('main');
  if (args.includes('--help') || args.includes('-h')) return await printHelp(command);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  try {
    switch (command) {
      case 'serve': {
        const { serve } = await import('../server.ts');
        await serve(config);
        return 0;
      }
      case 'migrate': {
        const { openDb } = await import('../db/client.ts');
        const { migrate } = await import('../db/migrate.ts');
        const handle = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
        try {
          const ran = await migrate(handle.db);
          process.stdout.write(ran.length ? `applied ${ran.join(', ')}\n` : 'the database is up to date\n');
        } finally {
          await handle.close();
        }
        return 0;
      }
      case 'token':
        return await tokenCommand(config, args);
      case 'keys':
        return await keysCommand(config, args);
      case 'listen':
        return await listenCommand(config, args);
      case 'trigger':
        return await triggerCommand(config, args);
      case 'settlements': {
        const { settlementsCommand } = await import('./settlements.ts');
        return await withRuntime(config, (rt) => settlementsCommand(rt.deps, args, out));
      }
      case 'wallet-token': {
        const { walletTokenCommand } = await import('./wallet-token.ts');
        return await walletTokenCommand(args);
      }
      case 'openapi': {
        const { printOpenApi } = await import('./openapi.ts');
        await printOpenApi(config);
        return 0;
      }
      default:
        process.stderr.write(`unknown command "${command}"\n\n`);
        await printHelp('main');
        return 2;
    }
  } catch (error) {
    process.stderr.write(`svc ${command}: ${(error as Error).message}\n`);
    return 1;
  }
}
