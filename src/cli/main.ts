import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { databaseConnectMessage, withoutDatabasePassword } from '../db/connect-error.ts';
import type { Runtime } from '../deps.ts';
import { ApiClient } from './api-client.ts';
import { mintToken, readKeyFile } from './token.ts';
import { BOOTSTRAP_KEY_FILE, commandUsage, mainHelp, version } from './commands.ts';
import { guardStdout } from './stdout.ts';

// Database and HTTP modules load only for the commands that need them: `token` and `--help` stay fast.
const keyPairs = () => import('../modules/api-key-pairs/api-key-pairs.service.ts');

const stdout = guardStdout();
const write = (text: string) => stdout.write(text);

async function printHelp(topic: string): Promise<number> {
  write(`${(await commandUsage(topic)) ?? mainHelp()}\n`);
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
  const { checkTokenRequest } = await import('./token-rules.ts');
  const request = checkTokenRequest(
    { lifetime: values.lifetime, scopes: values.scope, embed: values.embed },
    config.tokenMaxLifetimeSeconds,
  );
  const token = await mintToken({
    privateKeyPem: readKeyFile(
      values.key ?? path.join(config.dataDir, BOOTSTRAP_KEY_FILE),
      path.join(config.dataDir, BOOTSTRAP_KEY_FILE),
    ),
    scopes: request.scopes,
    lifetimeSeconds: request.lifetimeSeconds,
    ...(values['merchant-account'] ? { merchantAccountId: values['merchant-account'] } : {}),
    ...(request.embed ? { embed: request.embed } : {}),
  });
  write(`${token}\n`);
  return 0;
}

async function keysCommand(config: Config, args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        'merchant-account': { type: 'string' },
        out: { type: 'string' },
        role: { type: 'string', multiple: true },
      },
    });
    if (values.out && fs.existsSync(values.out))
      throw new Error(`${values.out} already exists; it is never overwritten`);
    const { createKeyPair } = await keyPairs();
    const created = await withRuntime(config, (rt) =>
      createKeyPair(rt.deps, {
        displayName: values.name ?? 'cli',
        merchantAccountId: values['merchant-account'] ?? null,
        roles: values.role,
      }),
    );
    if (values.out) {
      fs.writeFileSync(values.out, created.privateKeyPem, { mode: 0o600, flag: 'wx' });
      write(`key pair ${created.id} created; kid ${created.thumbprint}; private key written to ${values.out}\n`);
    } else {
      process.stderr.write(
        `key pair ${created.id} created; kid ${created.thumbprint}. The private key below is shown once:\n`,
      );
      write(created.privateKeyPem);
    }
    return 0;
  }
  if (action === 'list') {
    const { listKeyPairs } = await keyPairs();
    const pairs = await withRuntime(config, (rt) => listKeyPairs(rt.deps));
    const rows = pairs.map((p) => [
      p.id,
      p.kid,
      p.display_name,
      p.merchant_account_id ?? '(all)',
      p.active ? 'active' : 'revoked',
      p.created_at,
    ]);
    const header = ['ID', 'KID', 'NAME', 'MERCHANT ACCOUNT', 'STATE', 'CREATED'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows]) write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ')}\n`);
    return 0;
  }
  if (action === 'rotate-vault') {
    const { rotateVault } = await import('./rotate-vault.ts');
    write(`${await rotateVault(config)}\n`);
    return 0;
  }
  if (action === 'revoke') {
    const target = rest[0];
    if (!target) throw new Error('svc keys revoke needs the id or kid of a key pair');
    const { revokeKeyPair } = await keyPairs();
    const revoked = await withRuntime(config, (rt) => revokeKeyPair(rt.deps, target));
    write(`key pair ${revoked.id} (kid ${revoked.kid}) revoked\n`);
    return 0;
  }
  return printHelp('keys');
}

const TARGET_OPTIONS = {
  url: { type: 'string' },
  key: { type: 'string' },
  'merchant-account': { type: 'string' },
} as const;

function apiClient(config: Config, values: { url?: string; key?: string; 'merchant-account'?: string }): ApiClient {
  return new ApiClient({
    baseUrl: values.url ?? config.publicUrl,
    privateKeyPem: readKeyFile(
      values.key ?? path.join(config.dataDir, BOOTSTRAP_KEY_FILE),
      path.join(config.dataDir, BOOTSTRAP_KEY_FILE),
    ),
    merchantAccountId: values['merchant-account'] ?? null,
  });
}

const out = (line: string) => write(`${line}\n`);
const err = (line: string) => void process.stderr.write(`${line}\n`);

async function listenCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...TARGET_OPTIONS,
      'forward-to': { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      json: { type: 'boolean', default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error('--port must be a whole number between 0 and 65535');
  if (values['forward-to'] && !/^https?:\/\//.test(values['forward-to']))
    throw new Error('--forward-to must be an http:// or https:// URL');
  // Exit cleanly on the first signal, or when the reader of stdout is gone (EPIPE: `svc listen |
  // tee f` after Ctrl-C): the subscription is deleted either way. A second signal is left to Node.
  const stop = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    void stdout.closed.then(() => resolve('stdout closed'));
  });
  const { listen } = await import('./listen.ts');
  const { machineListenSecret } = await import('./listen-secret.ts');
  const signingSecret = machineListenSecret(config.dataDir);
  return listen(
    {
      client: apiClient(config, values),
      host: values.host,
      port,
      forwardTo: values['forward-to'] ?? null,
      json: values.json,
      signingSecret,
      out,
      err,
    },
    stop,
  );
}

async function triggerCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: TARGET_OPTIONS, allowPositionals: true });
  if (positionals.length !== 1) {
    err(
      `svc trigger needs one event kind${positionals.length > 1 ? `, got ${positionals.length}` : ''}\n\n${await commandUsage('trigger')}`,
    );
    return 2;
  }
  const { trigger } = await import('./trigger.ts');
  return trigger(apiClient(config, values), positionals[0]!, out, err);
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...args] = argv;
  if (command === '--version' || command === '-v' || command === 'version') {
    write(`svc ${version()}\n`);
    return 0;
  }
  if (command === 'help' || command === '--help' || command === '-h') return await printHelp(args[0] ?? 'main');
  if (args.includes('--help') || args.includes('-h')) {
    if ((await commandUsage(command)) !== null) return await printHelp(command);
    err(`unknown command "${command}"\n\n${mainHelp()}`);
    return 2;
  }
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
          write(ran.length ? `applied ${ran.join(', ')}\n` : 'the database is up to date\n');
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
      case 'audit': {
        const { auditCommand } = await import('./audit.ts');
        return await withRuntime(config, (rt) => auditCommand(rt.deps, args, out));
      }
      case 'users': {
        const { usersCommand } = await import('./users.ts');
        return await withRuntime(config, (rt) => usersCommand(rt.deps, args, out));
      }
      case 'wallet-token': {
        const { walletTokenCommand } = await import('./wallet-token.ts');
        return await walletTokenCommand(args);
      }
      case 'openapi': {
        const { printOpenApi } = await import('./openapi.ts');
        await printOpenApi(config, write);
        return 0;
      }
      default:
        err(`unknown command "${command}"\n\n${mainHelp()}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      err(`configuration error: ${error.message}`);
      return 1;
    }
    const usage = String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')
      ? ` (svc ${command} --help)`
      : '';
    // A PostgreSQL server that does not answer is named by host:port; no line carries its password.
    const unreachable = config.databaseUrl ? databaseConnectMessage(error, config.databaseUrl) : null;
    err(
      withoutDatabasePassword(
        `svc ${command}: ${unreachable ?? `${(error as Error).message}${usage}`}`,
        config.databaseUrl,
      ),
    );
    return 1;
  }
}
