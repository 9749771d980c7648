import { createHash } from 'node:crypto';
import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type {
  DigitalWalletPatch,
  DigitalWalletProvider,
  DigitalWalletRow,
  TokenDecryption,
} from '../../db/schema-digital-wallets.ts';
import { duplicateRecord, fieldRefusal, notFound } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import * as repo from './digital-wallets.repo.ts';
import {
  DIGITAL_WALLET_TYPE,
  toDigitalWalletResource,
  type CreateDigitalWalletBody,
  type DigitalWallet,
  type DigitalWalletDomainBody,
  type UpdateDigitalWalletBody,
} from './digital-wallets.schemas.ts';
import { keyColumns } from './wallet-secrets.ts';

const MAX_DOMAINS = 100;
const audited = (row: DigitalWalletRow) => ({ type: DIGITAL_WALLET_TYPE, id: row.id, name: `${row.provider} wallet` });
const bad = (pointer: string, message: string) => fieldRefusal('body', pointer, message);
const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** Domain names as browsers compare them: lowercase, each once. */
function domainsOf(
  provider: DigitalWalletProvider,
  names: readonly string[] | null | undefined,
  pointer: string,
): string[] {
  const list = [...new Set((names ?? []).map((n) => n.toLowerCase()))];
  if (list.length > 0 && provider !== 'apple')
    throw bad(pointer, 'Domain names are registered for Apple Pay wallets only');
  return list;
}

/** `token_decryption` of a create or update; only Apple Pay and Google Pay tokens can be passed on encrypted. */
function tokenDecryptionOf(
  provider: DigitalWalletProvider,
  value: TokenDecryption | undefined,
): TokenDecryption | undefined {
  if (value === 'payment-service' && provider !== 'apple' && provider !== 'google') {
    throw bad(
      '/token_decryption',
      `token_decryption payment-service applies to apple and google wallets only, not to ${provider}`,
    );
  }
  return value;
}

/**
 * The Click to Pay digital payment application of a new wallet: named in extra_configuration
 * (production: as onboarded with the card networks), else simulated in the sandbox (docs/digital-wallets.md).
 */
function clickToPayFields(
  ctx: RequestContext,
  id: string,
  body: CreateDigitalWalletBody,
): Record<string, unknown> | null {
  if (body.provider !== 'click-to-pay') return null;
  const extra = body.extra_configuration ?? {};
  const name = body.merchant_display_name ?? body.merchant_name;
  if (typeof extra.digital_payment_application_id === 'string')
    return {
      digital_payment_application_id: extra.digital_payment_application_id,
      digital_payment_application_name:
        typeof extra.digital_payment_application_name === 'string' ? extra.digital_payment_application_name : name,
    };
  if (ctx.deps.config.environment === 'production') {
    throw bad(
      '/extra_configuration',
      'A production Click to Pay wallet needs extra_configuration.digital_payment_application_id (the application onboarded with the card networks)',
    );
  }
  const hex = createHash('sha256').update(`click-to-pay:${ctx.merchantAccountId}:${id}`).digest('hex');
  return {
    digital_payment_application_id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`,
    digital_payment_application_name: name,
  };
}

export async function createDigitalWallet(ctx: RequestContext, body: CreateDigitalWalletBody): Promise<DigitalWallet> {
  if (body.accept_terms_and_conditions !== true)
    throw bad(
      '/accept_terms_and_conditions',
      "accept_terms_and_conditions must be true to register a wallet (the merchant accepts the provider's terms)",
    );
  const domains = domainsOf(body.provider, body.domain_names, '/domain_names');
  const id = uuidv7();
  const fields = clickToPayFields(ctx, id, body);
  return withRequestTransaction(ctx, async (tx) => {
    const stub = {
      merchant_account_id: ctx.merchantAccountId,
      id,
      provider: body.provider,
      secrets_ciphertext: null,
      secrets_key_id: null,
      apple_merchant_identifier: null,
      google_merchant_id: null,
      payment_processing_key_configured: false,
    };
    const keys = await keyColumns(tx, ctx.deps, stub, body);
    const row = await repo.insertWallet(tx, {
      ...keys,
      merchant_account_id: ctx.merchantAccountId,
      id,
      provider: body.provider,
      merchant_name: body.merchant_name,
      merchant_display_name: body.merchant_display_name ?? null,
      merchant_url: body.merchant_url ?? null,
      merchant_country_code: body.merchant_country_code ?? null,
      merchant_category_code: body.merchant_category_code ?? null,
      address: json(body.address),
      extra_configuration: json(body.extra_configuration),
      domain_names: domains,
      fields: json(fields),
      token_decryption: tokenDecryptionOf(body.provider, body.token_decryption) ?? 'server',
    });
    if (!row) {
      const existing = await repo.findWalletByProvider(tx, ctx.merchantAccountId, body.provider);
      throw duplicateRecord(
        existing?.id ?? '',
        `A ${body.provider} wallet is already registered for this merchant account (${existing?.id}); update it with PUT /digital-wallets/{id}`,
      );
    }
    await recordAudit(tx, ctx, 'created', audited(row));
    return toDigitalWalletResource(row);
  });
}

export async function listDigitalWallets(ctx: RequestContext): Promise<{ items: DigitalWallet[] }> {
  const rows = await repo.listWallets(ctx.deps.db, ctx.merchantAccountId);
  return { items: rows.map((row) => toDigitalWalletResource(row)) };
}

export async function getDigitalWallet(ctx: RequestContext, id: string): Promise<DigitalWallet> {
  const row = await repo.findWallet(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('digital wallet', id);
  return toDigitalWalletResource(row);
}

/** The plain columns of an update: omitted keeps, null clears (merchant_name cannot be cleared). */
function plainPatch(current: DigitalWalletRow, body: UpdateDigitalWalletBody): DigitalWalletPatch {
  if (body.merchant_name === null)
    throw bad('/merchant_name', 'merchant_name cannot be null: a wallet requires it; leave it out to keep its value');
  const patch: DigitalWalletPatch = {};
  if (body.merchant_name !== undefined) patch.merchant_name = body.merchant_name;
  for (const field of [
    'merchant_display_name',
    'merchant_url',
    'merchant_country_code',
    'merchant_category_code',
  ] as const)
    if (body[field] !== undefined) patch[field] = body[field];
  if (body.address !== undefined) patch.address = json(body.address);
  if (body.extra_configuration !== undefined) patch.extra_configuration = json(body.extra_configuration);
  if (body.domain_names !== undefined)
    patch.domain_names = domainsOf(current.provider, body.domain_names, '/domain_names');
  const decryption = tokenDecryptionOf(current.provider, body.token_decryption);
  if (decryption !== undefined) patch.token_decryption = decryption;
  return patch;
}

export async function updateDigitalWallet(
  ctx: RequestContext,
  id: string,
  body: UpdateDigitalWalletBody,
): Promise<DigitalWallet> {
  return withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findWallet(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!current) throw notFound('digital wallet', id);
    const patch = { ...plainPatch(current, body), ...(await keyColumns(tx, ctx.deps, current, body)) };
    const row = await repo.updateWallet(tx, ctx.merchantAccountId, id, patch);
    await recordAudit(tx, ctx, 'updated', audited(row));
    return toDigitalWalletResource(row);
  });
}

export async function deleteDigitalWallet(ctx: RequestContext, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findWallet(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!current) throw notFound('digital wallet', id);
    await repo.deleteWallet(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', audited(current));
  });
}

/** Adds or removes one domain of an Apple Pay wallet; both are idempotent list edits. */
export async function editDomain(
  ctx: RequestContext,
  id: string,
  body: DigitalWalletDomainBody,
  action: 'add' | 'remove',
): Promise<DigitalWallet> {
  return withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findWallet(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!current) throw notFound('digital wallet', id);
    const [domain] = domainsOf(current.provider, [body.domain_name], '/domain_name');
    const present = current.domain_names.includes(domain!);
    if (action === 'add' ? present : !present) return toDigitalWalletResource(current);
    const domains =
      action === 'add' ? [...current.domain_names, domain!] : current.domain_names.filter((d) => d !== domain);
    if (domains.length > MAX_DOMAINS)
      throw bad('/domain_name', `A wallet has at most ${MAX_DOMAINS} domains; remove one first`);
    const row = await repo.updateWallet(tx, ctx.merchantAccountId, id, { domain_names: domains });
    await recordAudit(tx, ctx, 'updated', audited(row));
    return toDigitalWalletResource(row);
  });
}

/** The merchant account's wallet of a provider, or null (payments, sessions, payment options). */
export async function findWalletOfProvider(
  ctx: RequestContext,
  provider: DigitalWalletProvider,
): Promise<DigitalWalletRow | null> {
  return (await repo.findWalletByProvider(ctx.deps.db, ctx.merchantAccountId, provider)) ?? null;
}

/** The providers registered by the merchant account, and who decrypts each one's tokens. */
export async function registeredProviders(
  ctx: RequestContext,
): Promise<Array<{ provider: DigitalWalletProvider; tokenDecryption: TokenDecryption }>> {
  return repo.listProviders(ctx.deps.db, ctx.merchantAccountId);
}
