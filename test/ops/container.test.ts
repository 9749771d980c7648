import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configurationVariables, loadConfig } from '../../src/config.ts';
import { npmStartNodeArgs } from '../../bench/server.ts';
import { ROOT } from '../helpers/spawn-server.ts';

/**
 * No container engine runs where the tests run: the Dockerfile and compose.yaml are checked by
 * reading them (what hadolint would catch that matters here, and what our server needs).
 */
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const dockerfile = read('Dockerfile');
/** Instructions with continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const finalStage = instructions.slice(instructions.map((l) => l.startsWith('FROM ')).lastIndexOf(true));
const compose = parse(read('compose.yaml'), { merge: true }) as {
  services: Record<
    string,
    {
      image?: string;
      command?: string[];
      environment?: Record<string, string>;
      depends_on?: Record<string, { condition: string }>;
      ports?: string[];
    }
  >;
};
/** The configuration table of docs/configuration.md (generated from the settings: src/config-table.test.ts). */
const configurationDoc = read('docs/configuration.md');
const settingNames = new Set(configurationVariables().map((v) => v.name));

describe('happy', () => {
  it('builds from a Node 20 slim base pinned to an exact release (or a digest), in two stages', () => {
    const defaultImage = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    expect(defaultImage).toMatch(/^node:20\.\d+\.\d+-[a-z]+-slim(@sha256:[0-9a-f]{64})?$|^node@sha256:[0-9a-f]{64}$/);
    const froms = instructions.filter((l) => l.startsWith('FROM '));
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toMatch(/^FROM \$\{NODE_IMAGE\} AS [a-z-]+$/);
    expect(dockerfile).not.toMatch(/:latest\b/);
  });

  it('installs production dependencies from the lock file only, and runs as a non-root user', () => {
    expect(instructions.some((l) => /^RUN npm ci --omit=dev\b/.test(l))).toBe(true);
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    // The image runs compiled JavaScript: no TypeScript loader among the production dependencies.
    expect(pkg.dependencies).not.toHaveProperty('tsx');
    expect(pkg.dependencies).toHaveProperty('prom-client');
    const user = finalStage.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)(:|$)/);
    // No instruction after USER gives root back.
    expect(finalStage.slice(finalStage.indexOf(user!)).some((l) => /^USER (root|0)/.test(l))).toBe(false);
  });

  it('compiles the sources in a build stage and ships dist/ without them', () => {
    const froms = instructions.filter((l) => l.startsWith('FROM '));
    const build = instructions.slice(
      instructions.indexOf(froms.find((l) => l.endsWith(' AS build'))!),
      instructions.indexOf(froms.at(-1)!),
    );
    expect(build).toContain('RUN npm run build');
    expect(build).toContain('COPY src ./src');
    expect(finalStage).toContain('COPY --from=build --chown=root:root /app/dist ./dist');
    expect(finalStage.some((l) => /^COPY .*\bsrc\b/.test(l))).toBe(false);
  });

  it('checks readiness on /readyz, the path the health module serves, and lets SIGTERM reach the server', () => {
    const healthcheck = finalStage.find((l) => l.startsWith('HEALTHCHECK '));
    expect(healthcheck).toContain('/readyz');
    expect(read('src/modules/health/index.ts')).toMatch(/'\/readyz'/);
    // Exec form: node is PID 1 and receives the signal, which src/server.ts handles.
    const cmd = finalStage.find((l) => l.startsWith('CMD '))!;
    // With npm start's node flags (a larger young generation, no pretenuring; README "Memory"): one server, run alike.
    expect(npmStartNodeArgs(ROOT)).toEqual(['--max-semi-space-size=64', '--no-allocation-site-pretenuring']);
    expect(JSON.parse(cmd.slice(4))).toEqual(['node', ...npmStartNodeArgs(ROOT), 'bin/svc.mjs', 'serve']);
    expect(finalStage).toContain('STOPSIGNAL SIGTERM');
    expect(read('src/server.ts')).toContain("process.on('SIGTERM'");
  });

  it('keeps secrets, local data and dependencies out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['node_modules', 'data', '*.pem', '.env', '.git']) expect(ignored).toContain(entry);
  });

  it('runs PostgreSQL 15, a one-shot migration and two servers sharing one vault master key', () => {
    const { postgres, migrate, 'server-1': one, 'server-2': two } = compose.services;
    expect(postgres!.image).toMatch(/^postgres:15\.\d+(-[a-z]+)?$/);
    expect(migrate!.command).toEqual(['node', 'bin/svc.mjs', 'migrate']);
    expect(migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const server of [one!, two!])
      expect(server.depends_on).toEqual({ migrate: { condition: 'service_completed_successfully' } });
    expect(one!.environment!.VAULT_MASTER_KEY).toBe(two!.environment!.VAULT_MASTER_KEY);
    expect(one!.environment!.VAULT_MASTER_KEY).toMatch(/^\$\{VAULT_MASTER_KEY:\?/);
    expect(one!.environment!.DATABASE_URL).toBe(two!.environment!.DATABASE_URL);
    expect(one!.ports).not.toEqual(two!.ports);
  });

  it('sets only variables the server reads and docs/configuration.md documents, and they load', () => {
    for (const name of ['migrate', 'server-1', 'server-2']) {
      const environment = compose.services[name]!.environment!;
      for (const variable of Object.keys(environment)) {
        expect(settingNames.has(variable), `${variable} read by the settings (src/config.ts GROUPS)`).toBe(true);
        expect(configurationDoc, `${variable} in the table of docs/configuration.md`).toMatch(
          new RegExp(`^\\| \`${variable}\` \\|`, 'm'),
        );
      }
      // With the required secrets filled in as the example file says, the configuration loads.
      const filled = Object.fromEntries(
        Object.entries(environment).map(([key, value]) => [key, substitute(String(value))]),
      );
      const config = loadConfig(filled);
      expect(config.environment).toBe('production');
      expect(config.databaseUrl).toBe('postgres://svc:0123abcd@postgres:5432/svc');
      expect(config.metricsToken).not.toBeNull();
      expect(config.host).toBe('0.0.0.0');
      // What the servers hand out is PUBLIC_URL, never the 0.0.0.0 they listen on.
      expect(config.publicUrl).toBe('https://payments.example.com');
    }
  });
});

describe('errors', () => {
  it('refuses to start compose without the secrets, naming each (${VAR:?message})', () => {
    const required = [...read('compose.yaml').matchAll(/\$\{([A-Z_]+):\?/g)].map((m) => m[1]!);
    expect(new Set(required)).toEqual(
      new Set(['POSTGRES_PASSWORD', 'VAULT_MASTER_KEY', 'METRICS_TOKEN', 'PUBLIC_URL']),
    );
    const example = read('docs/ops/compose.env.example');
    for (const variable of required) expect(example).toMatch(new RegExp(`^${variable}=$`, 'm'));
  });
});

describe('security', () => {
  it('leaves only the data directory writable by the server user, and publishes ports on loopback', () => {
    expect(finalStage.filter((l) => l.startsWith('COPY ')).every((l) => l.includes('--chown=root:root'))).toBe(true);
    expect(finalStage.some((l) => l.includes('chown node:node /var/lib/svc'))).toBe(true);
    for (const name of ['server-1', 'server-2'])
      for (const port of compose.services[name]!.ports!) expect(port).toMatch(/^127\.0\.0\.1:/);
  });
});

/** What docker compose does with an .env holding sample secrets. */
function substitute(value: string): string {
  const samples: Record<string, string> = {
    POSTGRES_PASSWORD: '0123abcd',
    VAULT_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
    METRICS_TOKEN: 'f'.repeat(64),
    PUBLIC_URL: 'https://payments.example.com',
  };
  return value.replace(
    /\$\{([A-Z_]+)(?::-([^}]*)|:\?[^}]*)?\}/g,
    (_, name: string, fallback: string | undefined) => samples[name] ?? fallback ?? '',
  );
}
