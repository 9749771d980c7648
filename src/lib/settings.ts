import fs from 'node:fs';

/**
 * The building blocks of the configuration (issue 51): each group declares its settings beside its
 * module (`<group>.config.ts`) as a list of `Setting`s built here, and `src/config.ts` gathers every
 * group, reads and validates them in one place, and renders the table of docs/configuration.md.
 * A bad value throws `ConfigError` naming the variable: `<VARIABLE>: <what is wrong>, got "<value>"`.
 * Only `src/config.ts` passes `process.env` in; nothing here reads it.
 */

export type Env = Record<string, string | undefined>;
export type Environment = 'sandbox' | 'production';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}

/** One documented environment variable: a row of the configuration table. */
export interface Variable {
  name: string;
  /** The default as the table shows it (Markdown). */
  default: string;
  /** One line (Markdown). */
  description: string;
  /**
   * A secret (a key, a token, a password): `read` also takes it from the file `<NAME>_FILE` names
   * (as container secrets are mounted), and no error message quotes its value.
   */
  secret?: true;
}

/** A value of the configuration: the variables it reads and how it turns them into the value. */
export interface Setting<T> {
  variables: readonly Variable[];
  read(env: Env, environment: Environment): T;
}

/** A group of settings, declared beside its module; `title` is the table's group column. */
export interface SettingGroup<S extends Record<string, Setting<unknown>>> {
  title: string;
  settings: S;
}

/** The variables marked `secret` by the groups defined so far (every group is defined before config.ts reads one). */
const secretVariables = new Set<string>();

export const isSecretVariable = (name: string): boolean => secretVariables.has(name);

export function defineGroup<S extends Record<string, Setting<unknown>>>(title: string, settings: S): SettingGroup<S> {
  for (const setting of Object.values(settings))
    for (const variable of setting.variables) if (variable.secret) secretVariables.add(variable.name);
  return { title, settings };
}

/** The values a group's settings produce, typed. */
export type ValuesOf<G> =
  G extends SettingGroup<infer S> ? { [K in keyof S]: S[K] extends Setting<infer T> ? T : never } : never;

/** Reads every setting of a group, in the order declared; the first bad one throws. */
export function loadGroup(
  group: SettingGroup<Record<string, Setting<unknown>>>,
  env: Env,
  environment: Environment,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(group.settings)) values[key] = setting.read(env, environment);
  return values;
}

/** A variable's value; empty counts as unset. A secret may come from the file `<NAME>_FILE` names instead (trimmed). */
export function read(env: Env, name: string): string | undefined {
  const value = env[name];
  const direct = value === undefined || value === '' ? undefined : value;
  const file = secretVariables.has(name) ? env[`${name}_FILE`] : undefined;
  if (file === undefined || file === '') return direct;
  if (direct !== undefined)
    throw new ConfigError(`${name}_FILE`, `is set and so is ${name}: give the secret one way only`);
  return readSecretFile(`${name}_FILE`, file);
}

/** A secret file's content, trimmed; the error names the file and never quotes what it holds. */
function readSecretFile(variable: string, file: string): string | undefined {
  let content: string;
  try {
    content = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      variable,
      `cannot read the file "${file}" (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const trimmed = content.trim();
  if (trimmed === '') throw new ConfigError(variable, `the file "${file}" is empty`);
  return trimmed;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number between ${min} and ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

const code = (value: string | number | boolean) => `\`${value}\``;

/** A whole number within its range. */
export function integerSetting(
  name: string,
  options: { default: number; min: number; max: number; description: string },
): Setting<number> {
  return {
    variables: [{ name, default: code(options.default), description: options.description }],
    read: (env) => integer(env, name, options.default, options.min, options.max),
  };
}

/** `true`/`1` or `false`/`0`. */
export function flagSetting(name: string, fallback: boolean, description: string): Setting<boolean> {
  return { variables: [{ name, default: code(fallback), description }], read: (env) => boolean(env, name, fallback) };
}

/** One of a list of words. */
export function choiceSetting<T extends string>(
  name: string,
  fallback: T,
  allowed: readonly T[],
  description: string,
): Setting<T> {
  return {
    variables: [{ name, default: code(fallback), description }],
    read: (env) => oneOf(env, name, fallback, allowed),
  };
}

/** Any other value: the variables it documents and its own reading. */
export function customSetting<T>(
  variables: Variable | readonly Variable[],
  readValue: (env: Env, environment: Environment) => T,
): Setting<T> {
  return { variables: Array.isArray(variables) ? variables : [variables as Variable], read: readValue };
}
