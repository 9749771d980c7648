import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRIGGERS } from './trigger.ts';

/** The key file the server writes on its first start (see bootstrap.ts). */
export const BOOTSTRAP_KEY_FILE = 'private_key.pem';

/** One command of `svc`: its name, the line the command list shows, and its whole usage. */
export interface CommandInfo {
  name: string;
  summary: string;
  /** What `svc <command> --help` prints (loaded lazily where it lives with a heavier module). */
  usage: string | (() => Promise<string>);
}

/** Every command, once: `svc --help` lists them from here and `svc <command> --help` prints their usage. */
export const COMMANDS: CommandInfo[] = [
  {
    name: 'serve',
    summary: 'run the HTTP API (and the job worker unless RUN_WORKER=false)',
    usage: `Usage: svc serve

Starts the API on HOST:PORT (default 127.0.0.1:8080) with the database of DATABASE_URL, or the
embedded PGlite database in DATA_DIR (default ./data, relative to the current directory). Applies
migrations, and on an empty database creates the merchant account "default" and a full-access key
pair whose private key is written to DATA_DIR/${BOOTSTRAP_KEY_FILE}. Links it hands out (payment
links, the OpenAPI servers) start with PUBLIC_URL, required in production (docs/configuration.md).
Stops gracefully on SIGTERM or SIGINT; a second signal (half a second or more later) exits at once.

Example:
  PORT=0 svc serve          # any free port; the banner says which`,
  },
  {
    name: 'migrate',
    summary: 'apply database migrations and exit',
    usage: `Usage: svc migrate

Applies pending migrations to DATABASE_URL (or the embedded database in DATA_DIR) and exits.
Safe to run while other processes start: migrations take an advisory lock.`,
  },
  {
    name: 'token',
    summary: 'mint a bearer token from a private key file',
    usage: `Usage: svc token [--key FILE] [--scope SCOPE]... [--lifetime SECONDS] [--merchant-account ID] [--embed JSON]

Prints a bearer token (ES512 JWT) signed with the private key FILE (default DATA_DIR/${BOOTSTRAP_KEY_FILE}).
  --key FILE              PEM private key (PKCS#8 or SEC1) of a registered key pair
  --scope SCOPE           a scope to grant, repeatable (default: *.read and *.write)
  --lifetime SECONDS      token lifetime (default 3600)
  --merchant-account ID   default merchant account of the token's requests
  --embed JSON            an embed claim (use with --scope embed)

Example:
  curl -H "Authorization: Bearer $(svc token)" http://127.0.0.1:8080/merchant-accounts`,
  },
  {
    name: 'keys',
    summary: 'create, list or revoke API key pairs; re-wrap vault keys',
    usage: `Usage: svc keys <create|list|revoke|rotate-vault> [options]

  svc keys create [--name NAME] [--merchant-account ID] [--role ROLE]... [--out FILE]
      generates an ES512 key pair, registers its public key and writes the private key PEM to FILE
      (mode 0600, never overwritten) or prints it; shows the kid (JWK thumbprint). With --role
      (repeatable, a slug of GET /roles), the pair's tokens get at most those roles' scopes
  svc keys list
      lists key pairs that are not deleted: id, kid, name, merchant account, state
  svc keys rotate-vault
      re-wraps every vault data key under the current master key. With VAULT_MASTER_KEY: set the new
      key there and the old one in VAULT_PREVIOUS_MASTER_KEYS on every server, then run this; remove
      the old key afterwards. The same between providers (VAULT_MASTER_KEY_PROVIDER: aws-kms,
      vault-transit; old keys as aws-kms:<key> or vault-transit:<key>). Sandbox without
      VAULT_MASTER_KEY: generates a new key file in DATA_DIR and keeps the old one in
      vault_master_key.previous until the re-wrap is done
  svc keys revoke <ID|KID>
      disables a key pair; every server process rejects its tokens within 5 seconds

With the embedded database, stop the server first: PGlite allows one process at a time.`,
  },
  {
    name: 'openapi',
    summary: 'print the OpenAPI document',
    usage: `Usage: svc openapi

Prints the OpenAPI 3 document of every route as JSON (npm run openapi writes it to openapi.json).
Needs no running server and no database: it is built on a throwaway in-memory one.

Example:
  svc openapi | head -20`,
  },
  {
    name: 'listen',
    summary: "receive the sandbox's webhooks on this machine, verified and printed live",
    usage: `Usage: svc listen [--forward-to URL] [--port N] [--host ADDRESS] [--json] [--url URL] [--key FILE] [--merchant-account ID]

Subscribes a temporary webhook subscription of the merchant account to a receiver this command
serves on HOST:PORT (default 127.0.0.1, any free port), verifies each delivery's signature, prints
the events as they arrive and deletes the subscription on exit (Ctrl-C, SIGTERM, or when the
reader of its output goes away, as "svc listen | tee events.log" after Ctrl-C).
  --forward-to URL        also POST each verified event (body and timestamp unchanged) to URL, your
                          app, signed with this machine's signing secret
  --json                  print each event's whole envelope as one JSON line
  --url URL               the server (default PUBLIC_URL, http://127.0.0.1:8080)
  --key FILE              private key of a key pair (default DATA_DIR/${BOOTSTRAP_KEY_FILE})
  --merchant-account ID   whose events (default: default)
The signing secret it prints is the same on every run: it is kept in DATA_DIR/cli-listen-secret
(created on the first run, mode 0600; delete the file for a new one). A sandbox server accepts
this loopback receiver (unless started with WEBHOOK_ALLOW_PRIVATE_URLS=false); production refuses it.

Example:
  svc listen --forward-to http://127.0.0.1:3000/webhooks`,
  },
  {
    name: 'trigger',
    summary: 'make the sandbox produce a webhook event of a kind (real calls on mock-card)',
    usage: `Usage: svc trigger <event kind> [--url URL] [--key FILE] [--merchant-account ID]

Makes the sandbox produce an event of that kind through real API calls on a mock-card payment
service of the merchant account (created if it has none): authorize, capture, void, refund, store
or delete a card, pay out. Run "svc listen" in another terminal to see the events. Kinds:
  ${Object.keys(TRIGGERS).join(', ')}

Example:
  svc trigger transaction.captured`,
  },
  {
    name: 'settlements',
    summary: "ingest a payment service's settlement reports from its provider now",
    usage: async () => (await import('./settlements.ts')).SETTLEMENTS_HELP,
  },
  {
    name: 'audit',
    summary: "verify the audit log's hash chains, or anchor their heads outside the database",
    usage: async () => (await import('./audit.ts')).AUDIT_HELP,
  },
  {
    name: 'users',
    summary: 'create a dashboard user, or reset its password: prints a one-time set-up link',
    usage: async () => (await import('./users.ts')).USERS_HELP,
  },
  {
    name: 'wallet-token',
    summary: 'print a sandbox Apple Pay, Google Pay or Paze test token',
    usage: async () => (await import('./wallet-token.ts')).WALLET_TOKEN_HELP,
  },
];

/** `svc --help`: the commands of the table, one line each. */
export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Usage: svc <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Options: --help (also after a command: svc <command> --help), --version.
Configuration comes from environment variables (docs/configuration.md); commands and examples: docs/cli.md.`;
}

/** The usage of `name`, or null for an unknown command. */
export async function commandUsage(name: string): Promise<string | null> {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) return null;
  return typeof command.usage === 'string' ? command.usage : command.usage();
}

/** The version of package.json (two levels up from src/cli and from dist/cli). */
export function version(): string {
  try {
    const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
