/**
 * Every regular expression in src/ (literals and `new RegExp`), what it is applied to, and why it
 * runs in linear time (issue 48; docs/security.md, "Patterns applied to request data").
 * test/platform/linear-patterns.test.ts finds every pattern in src/ and fails on one missing here,
 * then applies each one that data from outside reaches to adversarial inputs of 1 MiB.
 *
 * A new pattern: add its entry (the source exactly as written, what reaches it, why it is linear,
 * and inputs that would make it backtrack if it could), and a row to the table of docs/security.md.
 */

import { parseXml } from '../../src/connectors/braintree/braintree.xml.ts';
import { scrubString } from '../../src/lib/redact.ts';
import { pemBlocks } from '../../src/modules/vault-forward/authentication-fields.ts';
import { fillPlaceholders, maskCardNumbers, placeholdersOf, type ForwardCard } from '../../src/modules/vault-forward/placeholders.ts';

/**
 * What reaches a pattern: `request` (bodies, headers, query, path, and what the server stored from
 * them), `provider` (provider answers and webhooks), `log` (logged text, which may hold request
 * data), `cli` (the command line and what the CLI reads back); null: only the server's own text
 * (configuration, SQL the code builds, code constants).
 */
export type Reach = 'request' | 'provider' | 'log' | 'cli' | null;

export interface PatternEntry {
  file: string;
  /** The pattern exactly as written in the source. */
  source: string;
  /** The constant or function it belongs to. */
  name: string;
  reaches: Reach;
  appliedTo: string;
  /** Why it runs in linear time. */
  linear: string;
  /**
   * Inputs that would make it backtrack if it could, as [fill, head, tail]: the fill is repeated
   * to 1 MiB between head and tail. Every pattern also gets the common ones (the test's COMMON).
   */
  attacks?: Array<[string, string, string?]>;
}

export const PATTERNS: PatternEntry[] = [
  { file: 'src/http/http.config.ts', source: String.raw`/^\d+$/`, name: 'TRUST_PROXY hop count', reaches: null, appliedTo: 'TRUST_PROXY', linear: 'configuration; anchored, one class' },
  { file: 'src/http/http.config.ts', source: String.raw`/^\d{1,3}$/`, name: 'TRUST_PROXY prefix', reaches: null, appliedTo: 'the prefix length of a TRUST_PROXY range', linear: 'configuration; anchored, bounded' },
  { file: 'src/connectors/braintree/braintree.webhooks.ts', source: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/`, name: 'TIMESTAMP', reaches: 'provider', appliedTo: 'the timestamp of a Braintree webhook payload', linear: 'anchored at both ends; fixed-width fields, one bounded optional fraction', attacks: [['1', '2026-11-25T12:00:00.'], ['0', '']] },
  { file: 'src/connectors/braintree/braintree.settlement-cursor.ts', source: String.raw`/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/`, name: 'microsOf', reaches: 'provider', appliedTo: 'a timestamp of a Braintree settlement search answer (and our own cursor)', linear: 'anchored at both ends; fixed-width fields, one bounded optional fraction', attacks: [['1', '2026-11-25T12:00:00.'], ['0', '']] },
  { file: 'src/connectors/braintree/braintree.settlement-cursor.ts', source: String.raw`/^\d{4}-\d{2}-\d{2}$/`, name: 'dayStartOf', reaches: 'provider', appliedTo: 'a Braintree Date (disbursement and dispute dates)', linear: 'anchored at both ends; fixed width', attacks: [['1', '2026-']] },
  { file: 'src/http/openapi-components.ts', source: String.raw`/[^A-Za-z0-9._-]/g`, name: 'component NAME', reaches: null, appliedTo: 'titles of the route schemas (code)', linear: 'one negated class, no quantifier' },
  { file: 'src/http/reference-schema-html.ts', source: String.raw`/[&<>"']/g`, name: 'escapeHtml', reaches: null, appliedTo: 'text of the OpenAPI document (route schemas and descriptions: code)', linear: 'one character class, no quantifier' },
  { file: 'src/http/reference-schema-html.ts', source: String.raw`/\n{2,}/`, name: 'markdownHtml paragraphs', reaches: null, appliedTo: 'descriptions of the OpenAPI document (code)', linear: 'one literal repeated' },
  { file: 'src/http/reference-schema-html.ts', source: '/`([^`\\n]+)`/g', name: 'markdownHtml code', reaches: null, appliedTo: 'descriptions of the OpenAPI document (code)', linear: 'literal, one negated class that cannot match its closing literal, literal' },
  { file: 'src/http/reference-schema-html.ts', source: String.raw`/\n/g`, name: 'markdownHtml lines', reaches: null, appliedTo: 'descriptions of the OpenAPI document (code)', linear: 'a literal' },
  { file: 'src/http/reference-pages.ts', source: String.raw`/[^A-Za-z0-9_-]/g`, name: 'anchor', reaches: null, appliedTo: 'tags of the OpenAPI document (code)', linear: 'one negated class, no quantifier' },
  { file: 'src/http/reference-pages.ts', source: String.raw`/"#\/components\/schemas\/([^"]+)"/g`, name: 'usersOf', reaches: null, appliedTo: 'the OpenAPI document serialized (code)', linear: 'literal prefix, one negated class that cannot match its closing quote' },
  { file: 'src/lib/badge-icon.ts', source: String.raw`/[&<>"']/g`, name: 'escapeXml', reaches: null, appliedTo: 'the labels of the server\'s own icons (code constants)', linear: 'one character class, no quantifier' },
  { file: 'src/modules/idempotency-keys/request-hashes.ts', source: String.raw`/^[0-9a-f]{64}$/`, name: 'isUnkeyed', reaches: null, appliedTo: 'request hashes the server stored (its own SHA-256 or MAC text)', linear: 'anchored at both ends; one class, bounded' },
  { file: 'src/modules/dashboard-sessions/session-cookie.ts', source: String.raw`/^[A-Za-z0-9_-]{43}$/`, name: 'TOKEN', reaches: 'request', appliedTo: 'the value of the dashboard session cookie (Cookie header)', linear: 'anchored at both ends; one class, fixed length', attacks: [['a', '', '!']] },
  { file: 'src/modules/dashboard-users/totp.ts', source: String.raw`/^\d{6}$/`, name: 'checkTotpCode', reaches: 'request', appliedTo: 'the TOTP code of a sign-in or an enrolment (request body, at most 6 characters by its schema)', linear: 'anchored at both ends; fixed length', attacks: [['1', '', 'x']] },
  { file: 'src/modules/dashboard-users/dashboard-users.service.ts', source: String.raw`/^[^\s@]{1,64}@[^\s@]{1,253}$/`, name: 'EMAIL', reaches: 'cli', appliedTo: 'the `svc users create --email` argument', linear: 'anchored; two classes that exclude the `@` between them, bounded', attacks: [['a', '', '@'], ['a', 'a@', ' ']] },
  { file: 'src/modules/transactions/session-token.ts', source: String.raw`/^[A-Za-z0-9_-]{1,400}$/`, name: 'session token account', reaches: 'request', appliedTo: 'the first part of a transaction session token (`?token=`)', linear: 'anchored at both ends; one class, bounded', attacks: [['a', '', '!']] },
  { file: 'src/modules/transactions/session-token.ts', source: String.raw`/^\d{1,15}$/`, name: 'session token expiry', reaches: 'request', appliedTo: 'the expiry part of a transaction session token', linear: 'anchored at both ends; one class, bounded', attacks: [['1', '', 'x']] },
  { file: 'src/modules/transactions/session/transaction-session.service.ts', source: String.raw`/^https?:\/\//i`, name: 'completionUrl', reaches: 'request', appliedTo: 'the redirect_url a transaction was created with', linear: 'anchored literal prefix' },
  { file: 'src/observability/test-faults.ts', source: String.raw`/^[A-Za-z-]{1,64}$/`, name: 'TEST_CRASH_POINT', reaches: null, appliedTo: 'TEST_CRASH_POINT (tests only; refused in production)', linear: 'configuration; anchored, bounded' },
  { file: 'src/app.ts', source: String.raw`/^[A-Za-z0-9._:-]{1,128}$/`, name: 'REQUEST_ID', reaches: 'request', appliedTo: 'the x-request-id header', linear: 'anchored at both ends; one character class of at most 128' },
  { file: 'src/app.ts', source: String.raw`/position (\d+)/`, name: 'JSON body parser', reaches: 'request', appliedTo: 'the JSON parser\'s error message about the body (it quotes a few characters of it)', linear: 'a literal then one \\d+: each start fails after a fixed prefix', attacks: [['x', 'position ']] },
  { file: 'src/cli/main.ts', source: String.raw`/^https?:\/\//`, name: '--forward-to', reaches: 'cli', appliedTo: 'the `svc listen --forward-to` argument', linear: 'anchored literal prefix' },
  { file: 'src/cli/trigger.ts', source: String.raw`/^this server \((\w+)\)$/`, name: 'serverEnvironment', reaches: 'cli', appliedTo: 'the description of the server the CLI talks to (its OpenAPI document)', linear: 'anchored; \\w+ cannot match the `)` after it' },
  { file: 'src/cli/wallet-token.ts', source: String.raw`/^\d{12,19}$/`, name: '--card', reaches: 'cli', appliedTo: 'the `svc wallet-token --card` argument', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/cli/wallet-token.ts', source: String.raw`/^(0[1-9]|1[0-2])\/\d{2}$/`, name: '--expiry', reaches: 'cli', appliedTo: 'the `--expiry` argument', linear: 'anchored; fixed length' },
  { file: 'src/cli/wallet-token.ts', source: String.raw`/^\d{1,8}$/`, name: '--amount', reaches: 'cli', appliedTo: 'the `--amount` argument', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/cli/wallet-token.ts', source: String.raw`/^[A-Z]{3}$/`, name: '--currency', reaches: 'cli', appliedTo: 'the `--currency` argument', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/lib/settings.ts', source: String.raw`/^\d+$/`, name: 'integer', reaches: null, appliedTo: 'environment variables (configuration)', linear: 'anchored; one class' },
  { file: 'src/modules/vault-forward/vault-forward.config.ts', source: String.raw`/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/`, name: 'hostList', reaches: null, appliedTo: 'host lists of the configuration', linear: 'configuration, read once at start' },
  { file: 'src/connectors/connectors.config.ts', source: String.raw`/^[a-z0-9]+(-[a-z0-9_]+)+$/`, name: 'connectorBaseUrls id', reaches: null, appliedTo: 'CONNECTOR_BASE_URLS', linear: 'configuration' },
  { file: 'src/connectors/connectors.config.ts', source: String.raw`/^https?:\/\/[^\s]+$/`, name: 'connectorBaseUrls url', reaches: null, appliedTo: 'CONNECTOR_BASE_URLS', linear: 'configuration' },
  { file: 'src/modules/metrics/metrics.config.ts', source: String.raw`/^[\x21-\x7e]{32,512}$/`, name: 'METRICS_TOKEN', reaches: null, appliedTo: 'METRICS_TOKEN', linear: 'configuration' },
  { file: 'src/modules/digital-wallets/digital-wallets.config.ts', source: String.raw`/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g`, name: 'pemCertificates', reaches: null, appliedTo: 'PEM certificates of the configuration', linear: 'configuration' },
  { file: 'src/modules/digital-wallets/digital-wallets.config.ts', source: String.raw`/-----BEGIN (PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE)-----[\s\S]+?-----END \1-----/g`, name: 'public keys', reaches: null, appliedTo: 'PEM public keys of the configuration', linear: 'configuration' },
  { file: 'src/modules/reports/reports.config.ts', source: String.raw`/^https?:\/\/[^\s]+$/`, name: 'REPORTS_S3_ENDPOINT', reaches: null, appliedTo: 'REPORTS_S3_ENDPOINT', linear: 'configuration' },
  { file: 'src/server.config.ts', source: String.raw`/^[a-z0-9][a-z0-9-]{0,62}$/`, name: 'INSTANCE_ID', reaches: null, appliedTo: 'INSTANCE_ID', linear: 'configuration' },
  { file: 'src/http/http.config.ts', source: String.raw`/\/$/`, name: 'PUBLIC_URL', reaches: null, appliedTo: 'PUBLIC_URL', linear: 'configuration' },
  { file: 'src/http/public-url.ts', source: String.raw`/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/`, name: 'HOST_NAME', reaches: null, appliedTo: 'HOST (configuration)', linear: 'configuration, read once at start' },
  { file: 'src/cli/listen-secret.ts', source: String.raw`/^whsec_[A-Za-z0-9_-]{43}$/`, name: 'SHAPE', reaches: null, appliedTo: 'the svc listen secret file in DATA_DIR (written by the CLI itself)', linear: 'anchored; fixed length' },
  { file: 'src/connectors/adyen/adyen.sync.ts', source: String.raw`/^[A-Za-z0-9-]{1,100}$/`, name: 'live_url_prefix', reaches: 'request', appliedTo: 'Adyen credentials of a payment service (request body)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/connectors/adyen/adyen.sync.ts', source: String.raw`/^([0-9a-fA-F]{2}){16,}$/`, name: 'hmac_key', reaches: 'request', appliedTo: 'Adyen credentials of a payment service (request body)', linear: 'anchored; fixed-width groups of two, so one way to split', attacks: [['a', '', 'a!']] },
  { file: 'src/connectors/adyen/adyen.webhooks.ts', source: String.raw`/^([0-9a-fA-F]{2})+$/`, name: 'parseAdyenWebhook hmac_key', reaches: 'request', appliedTo: 'the stored Adyen HMAC key (from a request body)', linear: 'anchored; fixed-width groups of two', attacks: [['a', '', 'a!']] },
  { file: 'src/connectors/braintree/braintree.amounts.ts', source: String.raw`/^(\d+)(?:\.(\d+))?$/`, name: 'fromBraintreeAmount', reaches: 'provider', appliedTo: 'amounts in Braintree answers and webhooks', linear: 'anchored; digits, then an optional dot and digits: one way to split', attacks: [['1', '', '.'], ['1', '', '.1!']] },
  { file: 'src/connectors/braintree/braintree.amounts.ts', source: String.raw`/[1-9]/`, name: 'fromBraintreeAmount fraction', reaches: 'provider', appliedTo: 'the fraction digits of a Braintree amount', linear: 'one character class' },
  { file: 'src/connectors/braintree/braintree.mapping.ts', source: String.raw`/^[23]\d{3}$/`, name: 'processor error code', reaches: 'provider', appliedTo: 'error codes in Braintree answers', linear: 'anchored, fixed length' },
  { file: 'src/connectors/braintree/braintree.sync.ts', source: String.raw`/^\s*[A-Z]{3}\s*=\s*[A-Za-z0-9_-]+\s*$/`, name: 'merchant_account_ids', reaches: 'request', appliedTo: 'Braintree credentials of a payment service (request body)', linear: 'anchored; the classes on either side of each \\s* exclude whitespace', attacks: [[' ', ' '], ['USD = a ', ''], [' ', 'USD']] },
  { file: 'src/connectors/braintree/braintree.webhooks.ts', source: String.raw`/=+$/`, name: 'graphQlIdOf', reaches: 'provider', appliedTo: 'base64 of a transaction id from a Braintree webhook or answer (at most two `=`)', linear: 'base64 text holds `=` only at its end, at most two' },
  { file: 'src/connectors/braintree/braintree.webhooks.ts', source: String.raw`/[^A-Za-z0-9+=/\n]/`, name: 'bt_payload', reaches: 'provider', appliedTo: 'a Braintree webhook\'s bt_payload (before its signature is checked)', linear: 'one negated character class' },
  { file: 'src/connectors/braintree/braintree.webhooks.ts', source: String.raw`/\n/g`, name: 'bt_payload event id', reaches: 'provider', appliedTo: 'a Braintree webhook\'s bt_payload', linear: 'one literal character' },
  { file: 'src/connectors/braintree/braintree.xml.ts', source: String.raw`/&(amp|lt|gt|quot|apos);/g`, name: 'decode', reaches: 'provider', appliedTo: 'text and attribute values of Braintree XML', linear: 'a literal alternation between `&` and `;`', attacks: [['&amp', ''], ['&', '']] },
  { file: 'src/connectors/braintree/braintree.xml.ts', source: String.raw`/<\?[^>]*\?>|<!--[\s\S]*?-->|<\/([\w:-]+)\s*>|<([\w:-]+)((?:\s+[\w:-]+\s*=\s*"[^"]*")*)\s*(\/?)>|([^<]+)/gy`, name: 'TOKEN', reaches: 'provider', appliedTo: 'Braintree XML (webhook payloads, after the signature check)', linear: 'sticky (`y`): tried only where the previous token ended, and the parse stops at the first place no token starts; within one token every quantifier stops at a character the next part needs (`>`, `"`, `<`)', attacks: [['<?', ''], ['<!--', ''], ['<a', ''], ['<a x="', ''], ['<a ', ''], ['</a', ''], [' x="1"', '<a'], ['<a x="1"', '']] },
  { file: 'src/connectors/braintree/braintree.xml.ts', source: String.raw`/<!DOCTYPE|<!ENTITY/i`, name: 'parseXml DOCTYPE', reaches: 'provider', appliedTo: 'Braintree XML', linear: 'a literal alternation', attacks: [['<!DOCTYP', '']] },
  { file: 'src/connectors/braintree/braintree.xml.ts', source: String.raw`/\s*([\w:-]+)\s*=\s*"([^"]*)"/gy`, name: 'ATTRIBUTE', reaches: 'provider', appliedTo: 'the attributes of a Braintree XML tag', linear: 'sticky (`y`): tried only where the previous attribute ended', attacks: [['a', ''], ['a=', ''], [' a = "', '']] },
  { file: 'src/connectors/gift-cards/mock-gift-card.ts', source: String.raw`/^\d{16,19}$/`, name: 'knownCard', reaches: 'request', appliedTo: 'gift card numbers (request body)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/connectors/mock/mock-card-simulation.ts', source: String.raw`/^(100|[1-9]\d?)$/`, name: 'simulate_share', reaches: 'request', appliedTo: 'mock connector credentials (request body)', linear: 'anchored; a fixed alternation' },
  { file: 'src/connectors/provider-http.ts', source: String.raw`/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|no connection to the target/`, name: 'NEVER_SENT', reaches: null, appliedTo: 'the relay\'s own error messages', linear: 'a literal alternation; messages of this code' },
  { file: 'src/connectors/provider-http.ts', source: String.raw`/\/$/`, name: 'providerRequest baseUrl', reaches: null, appliedTo: 'connector base URLs (definitions and configuration)', linear: 'configuration' },
  { file: 'src/connectors/registry.ts', source: String.raw`/^[a-z0-9]+(-[a-z0-9_]+)+$/`, name: 'register', reaches: null, appliedTo: 'connector ids of the code', linear: 'code' },
  { file: 'src/connectors/stripe/stripe.verify.ts', source: String.raw`/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/`, name: 'secret_key', reaches: 'request', appliedTo: 'Stripe credentials of a payment service (request body)', linear: 'anchored; prefix literals, then one class', attacks: [['a', 'sk_test_', '!']] },
  { file: 'src/connectors/stripe/stripe.verify.ts', source: String.raw`/^whsec_[A-Za-z0-9+/=]+$/`, name: 'webhook_signing_secret', reaches: 'request', appliedTo: 'Stripe credentials (request body)', linear: 'anchored; prefix literal, then one class', attacks: [['a', 'whsec_', '!']] },
  { file: 'src/connectors/stripe/stripe.verify.ts', source: String.raw`/^pk_(test|live)_[A-Za-z0-9]+$/`, name: 'publishable_key', reaches: 'request', appliedTo: 'Stripe credentials (request body)', linear: 'anchored; prefix literals, then one class', attacks: [['a', 'pk_live_', '!']] },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/\$(\d+)/g`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/\$(\d+)/g`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/^\s*with\b/i`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: 'new RegExp(`^insert into (${IDENT}) (\\\\([^)]*\\\\)) values (.*)$`, \'is\')', name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: 'new RegExp(`^update (${IDENT}) set (.*)$`, \'is\')', name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/^ (on conflict|returning) /i`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/^ returning \*$/i`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/^("[^"]+") = \$(\d+)$/`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: 'new RegExp(`^select \\\\* from (${IDENT}) where (.*)$`, \'is\')', name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: 'new RegExp(`^delete from (${IDENT}) where (.*?) (returning .*)$`, \'is\')', name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/\$\d/`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/^("[^"]+") = \$(\d+)$/`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: 'new RegExp(`\\\\$@${i}(?!\\\\d)`)', name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: 'new RegExp(`"v"\\\\."p${n + 1}"(?!\\\\d)`, \'g\')', name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/\$@(\d+)/g`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/["\\]/`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/\\/g`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit-sql.ts', source: String.raw`/"/g`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/group-commit.ts', source: String.raw`/ returning /i`, name: 'group-commit SQL', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/keyset.ts', source: String.raw`/^\d{4}-\d{2}-\d{2}T/`, name: 'keyValue', reaches: 'request', appliedTo: 'values of a pagination cursor (query)', linear: 'anchored; fixed length prefix', attacks: [['1', '2025-01-01']] },
  { file: 'src/db/kysely-text.ts', source: String.raw`/"/g`, name: 'identifier', reaches: null, appliedTo: 'column and table names of the code', linear: 'code' },
  { file: 'src/db/like.ts', source: String.raw`/[\\%_]/g`, name: 'escapeLike', reaches: 'request', appliedTo: 'search text (query)', linear: 'one character class' },
  { file: 'src/db/migrate.ts', source: String.raw`/^\d{4}_[a-z0-9_]+\.sql$/`, name: 'listMigrations', reaches: null, appliedTo: 'migration file names', linear: 'code' },
  { file: 'src/db/migrate.ts', source: String.raw`/\.sql$/`, name: 'listMigrations version', reaches: null, appliedTo: 'migration file names', linear: 'code' },
  { file: 'src/db/prepared-statements.ts', source: String.raw`/on conflict \([^)]*\) where /i`, name: 'PARTIAL_CONFLICT', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/prepared-statements.ts', source: String.raw`/cached plan must not change result type/`, name: 'isCachedPlanChange', reaches: null, appliedTo: 'PostgreSQL error messages', linear: 'a literal' },
  { file: 'src/db/write-batch.ts', source: String.raw`/^\s*with\b/i`, name: 'canCombine', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/db/write-batch.ts', source: String.raw`/\$(\d+)/g`, name: 'write-batch parameters', reaches: null, appliedTo: 'SQL text the code builds (values travel as parameters, never in the text)', linear: 'SQL of the code' },
  { file: 'src/errors/pg-errors.ts', source: String.raw`/^[0-9A-Z]{5}$/`, name: 'sqlState', reaches: null, appliedTo: 'database driver error codes', linear: 'anchored, fixed length' },
  { file: 'src/http/auth.ts', source: String.raw`/^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+) *$/`, name: 'BEARER', reaches: 'request', appliedTo: 'the authorization header', linear: 'anchored; three segments of one class split by literal dots, spaces around', attacks: [['a.', 'Bearer '], [' ', 'Bearer a.a.a'], [' ', 'Bearer'], ['a.a.a ', 'Bearer ']] },
  { file: 'src/http/validation.ts', source: String.raw`/~1/g`, name: 'pathToLoc ~1', reaches: 'request', appliedTo: 'JSON pointers to fields of the request (validation errors)', linear: 'a literal', attacks: [['~', ''], ['~1', '']] },
  { file: 'src/http/validation.ts', source: String.raw`/~0/g`, name: 'pathToLoc ~0', reaches: 'request', appliedTo: 'JSON pointers to fields of the request', linear: 'a literal' },
  { file: 'src/http/validation.ts', source: String.raw`/^(0|[1-9]\d*)$/`, name: 'pathToLoc index', reaches: 'request', appliedTo: 'segments of a JSON pointer into the request', linear: 'anchored; one class' },
  { file: 'src/http/validation.ts', source: String.raw`/-/g`, name: 'describe format', reaches: null, appliedTo: 'format names of the schemas', linear: 'code' },
  { file: 'src/lib/base62.ts', source: String.raw`/-/g`, name: 'uuidToBase62', reaches: null, appliedTo: 'ids the server made', linear: 'a literal' },
  { file: 'src/lib/cards/card-number.ts', source: String.raw`/^\d*$/`, name: 'validateCardNumber', reaches: 'request', appliedTo: 'card numbers (request body)', linear: 'anchored; one class' },
  { file: 'src/lib/cards/expiration.ts', source: String.raw`/^(0[1-9]|1[0-2])\/(\d{2})$/`, name: 'MM_YY', reaches: 'request', appliedTo: 'expiration dates (request body)', linear: 'anchored, fixed length' },
  { file: 'src/lib/cards/iin-ranges.ts', source: String.raw`/^\d{1,6}$/`, name: 'toRange low', reaches: null, appliedTo: 'the IIN range table of the code', linear: 'code' },
  { file: 'src/lib/cards/iin-ranges.ts', source: String.raw`/^\d{1,6}$/`, name: 'toRange high', reaches: null, appliedTo: 'the IIN range table of the code', linear: 'code' },
  { file: 'src/lib/currency-numbers.ts', source: String.raw`/^\d{1,3}$/`, name: 'currencyOfNumber', reaches: 'request', appliedTo: 'currency codes in wallet tokens (request body)', linear: 'anchored, at most 3' },
  { file: 'src/lib/ids.ts', source: String.raw`/-/g`, name: 'uuidv5', reaches: null, appliedTo: 'the namespace UUID of a code catalogue (a constant)', linear: 'code' },
  { file: 'src/lib/ids.ts', source: String.raw`/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i`, name: 'isUuid', reaches: 'request', appliedTo: 'ids in paths, bodies and headers', linear: 'anchored, fixed length' },
  { file: 'src/lib/redact.ts', source: String.raw`/^(authorization|proxy-authorization|cookie|set-cookie|password|passwd|secret|client_secret|.*_secret|.*_secret_key|.*_encryption_key|.*_decryption_key|security_code|cvv|cvc|cvv2|number|card_number|pan|private_key|.*_private_key|privatekey|private_key_pem|cryptogram|onlinepaymentcryptogram|paymentdata|applepaytoken|googlepaytoken|signedmessage|dynamicdatavalue|paymenttoken|access_token|accesstoken|refresh_token|token|checkout_token|completeresponse|securedpayload|securepayload|api_key|idempotency-key|x-vault-forward-header-.*)$/i`, name: 'SENSITIVE_KEY', reaches: 'log', appliedTo: 'keys of logged objects (some come from requests)', linear: 'anchored at both ends: one start; each `.*_suffix` branch backtracks once over the key', attacks: [['_secret', ''], ['_secret_ke', ''], ['a', 'x-vault-forward-header-'], ['_private_ke', ''], ['_encryption_ke', '']] },
  { file: 'src/lib/redact.ts', source: String.raw`/\d(?:[ -]?\d){11,}/g`, name: 'DIGIT_RUN', reaches: 'log', appliedTo: 'logged strings (request data may reach a log line)', linear: 'each try ends at the first place two digits are not joined by at most one separator; a match is consumed whole', attacks: [['1 ', ''], ['1-', ''], ['1 -', ''], ['12345678901 ', '']] },
  { file: 'src/lib/redact.ts', source: String.raw`/whsec_[A-Za-z0-9_-]{8,}/g`, name: 'WEBHOOK_SECRET', reaches: 'log', appliedTo: 'logged strings', linear: 'a literal, then one greedy class with nothing after it', attacks: [['whsec_', ''], ['whsec_aaaaaaa ', '']] },
  { file: 'src/lib/redact.ts', source: String.raw`/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g`, name: 'PEM_PRIVATE', reaches: 'log', appliedTo: 'logged strings', linear: 'a block ends at its END line or at the end of the text, so every try from a BEGIN line succeeds and is consumed; `[A-Z ]*` stops at the `-` of the next part', attacks: [['-----BEGIN PRIVATE KEY-----', ''], ['-----BEGIN RSA PRIVATE KEY-----\n', ''], ['-----END PRIVATE KEY-----', ''], ['A ', '-----BEGIN '], ['-----BEGIN A', '']] },
  { file: 'src/lib/redact.ts', source: String.raw`/\d(?:[ -]?\d){11}/`, name: 'TWELVE_DIGITS', reaches: 'log', appliedTo: 'logged strings', linear: 'each try reads at most 23 characters', attacks: [['1 ', ''], ['1-', ''], ['12345678901 ', '']] },
  { file: 'src/lib/relay.ts', source: String.raw`/^\[|\]$/g`, name: 'relay hostname', reaches: 'request', appliedTo: 'host names of outbound URLs (vault forwards: request headers)', linear: 'a literal at the start or at the end', attacks: [[']', ''], ['[', '']] },
  { file: 'src/lib/url-safety.ts', source: String.raw`/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i`, name: 'isBlockedAddress', reaches: 'request', appliedTo: 'host names and resolved addresses of outbound URLs', linear: 'anchored; digit runs split by literal dots', attacks: [['1.', '::ffff:']] },
  { file: 'src/lib/url-safety.ts', source: String.raw`/^\[|\]$/g`, name: 'urlFormProblem brackets', reaches: 'request', appliedTo: 'host names of URLs from requests', linear: 'a literal at the start or at the end', attacks: [[']', '']] },
  { file: 'src/lib/url-safety.ts', source: String.raw`/(?<!\.)\.+$/`, name: 'urlFormProblem trailing dots', reaches: 'request', appliedTo: 'host names of URLs from requests', linear: 'a dot cannot precede the run (lookbehind): each run of dots is tried once', attacks: [['.', '', 'x'], ['a.', '']] },
  { file: 'src/lib/url-safety.ts', source: String.raw`/^\[|\]$/g`, name: 'resolveDeliveryAddress brackets', reaches: 'request', appliedTo: 'host names of URLs from requests', linear: 'a literal at the start or at the end', attacks: [[']', '']] },
  { file: 'src/modules/api-key-pairs/api-key-pairs.repo.ts', source: String.raw`/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i`, name: 'keyPairByIdOrThumbprint', reaches: 'request', appliedTo: 'the key id of a bearer token', linear: 'anchored, fixed length' },
  { file: 'src/modules/api-key-pairs/key-material.ts', source: String.raw`/^-----BEGIN (RSA )?PUBLIC KEY-----\r?\n[\s\S]+\r?\n-----END (RSA )?PUBLIC KEY-----$/`, name: 'PEM_PUBLIC', reaches: 'request', appliedTo: 'public keys of API key pairs (request body)', linear: 'anchored at both ends: one start; `[\\s\\S]+` backtracks once over the text, trying the END line at each line break', attacks: [['\n', '-----BEGIN PUBLIC KEY-----\n'], ['\n-----END PUBLIC KEY-----', '-----BEGIN PUBLIC KEY-----\n', 'x'], ['\r\n', '-----BEGIN RSA PUBLIC KEY-----\r\n']] },
  { file: 'src/modules/buyers/pii-mask.ts', source: String.raw`/\D/g`, name: 'maskPhone', reaches: 'request', appliedTo: 'stored phone numbers (request bodies)', linear: 'one character class' },
  { file: 'src/modules/card-details/card-details.service.ts', source: String.raw`/\d/g`, name: 'checkBin digits', reaches: 'request', appliedTo: 'a BIN (query)', linear: 'one character class' },
  { file: 'src/modules/card-details/card-details.service.ts', source: String.raw`/^\d+$/`, name: 'checkBin', reaches: 'request', appliedTo: 'a BIN (query)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/modules/connector-returns/routes/return-from-provider.ts', source: String.raw`/[&<>"']/g`, name: 'return page escape', reaches: 'request', appliedTo: 'text shown on the return page (query)', linear: 'one character class' },
  { file: 'src/modules/digital-wallets/apple-merchant-session.ts', source: String.raw`/^(cn-)?apple-pay-gateway(-(nc|pr)-pod[1-5]|-(sh|tj)-pod[1-3]|-cert)?\.apple\.com$/`, name: 'APPLE_GATEWAY', reaches: 'request', appliedTo: 'the host of an Apple Pay validation URL (request body)', linear: 'anchored; literals and a fixed alternation', attacks: [['-cert', 'apple-pay-gateway'], ['apple-pay-gateway', '']] },
  { file: 'src/modules/events/webhook-http.ts', source: String.raw`/^\[|\]$/g`, name: 'webhook delivery hostname', reaches: 'request', appliedTo: 'host names of webhook subscription URLs (request body)', linear: 'a literal at the start or at the end', attacks: [[']', '']] },
  { file: 'src/modules/flows/rule-conditions.ts', source: String.raw`/^[a-z0-9][a-z0-9-]{0,49}$/`, name: 'rule method', reaches: 'request', appliedTo: 'flow rule values (request body)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/modules/flows/rule-conditions.ts', source: String.raw`/^\d{1,8}$/`, name: 'rule digits', reaches: 'request', appliedTo: 'flow rule values (request body)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/modules/flows/rule-conditions.ts', source: String.raw`/^\d{4,8}$/`, name: 'rule BIN range', reaches: 'request', appliedTo: 'flow rule values (request body)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/modules/gift-cards/transaction-gift-cards.ts', source: String.raw`/^\d{16,19}$/`, name: 'gift card number', reaches: 'request', appliedTo: 'gift card numbers (request body)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/modules/metrics-explorer/datetime-range.ts', source: String.raw`/^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/`, name: 'DURATION', reaches: 'request', appliedTo: 'metrics time ranges (query)', linear: 'anchored; digit runs each ended by a different letter', attacks: [['1', 'P'], ['T1H', 'P'], ['1W', 'P'], ['1', 'PT']] },
  { file: 'src/modules/metrics-explorer/datetime-range.ts', source: String.raw`/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/`, name: 'DATE_TIME', reaches: 'request', appliedTo: 'metrics time ranges (query)', linear: 'anchored, bounded', attacks: [['1', '']] },
  { file: 'src/modules/metrics-explorer/datetime-range.ts', source: String.raw`/^P\d*[YM]/`, name: 'describe years or months', reaches: 'request', appliedTo: 'metrics time ranges (query)', linear: 'anchored; one class, then a letter', attacks: [['1', 'P']] },
  { file: 'src/modules/metrics-explorer/datetime-range.ts', source: String.raw`/^P[^T]*M/`, name: 'describe months', reaches: 'request', appliedTo: 'metrics time ranges (query)', linear: 'anchored; one class that backtracks once', attacks: [['a', 'P']] },
  { file: 'src/modules/metrics-explorer/metric-values.ts', source: String.raw`/\.\d{3}Z$/`, name: 'isoSeconds', reaches: null, appliedTo: 'dates the server formats', linear: 'code' },
  { file: 'src/modules/metrics-explorer/metrics.service.ts', source: String.raw`/^[0-9]{4,8}$/`, name: 'payment_method_bin filter', reaches: 'request', appliedTo: 'metrics filters (query)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/modules/metrics/index.ts', source: String.raw`/^Bearer (.+)$/i`, name: 'metrics token', reaches: 'request', appliedTo: 'the authorization header of GET /metrics', linear: 'anchored literal prefix, then `.+` to the end', attacks: [['a', 'Bearer ']] },
  { file: 'src/modules/payment-links/page/html.ts', source: String.raw`/[&<>"']/g`, name: 'escapeHtml', reaches: 'request', appliedTo: 'text of the hosted payment page (payment link fields)', linear: 'one character class' },
  { file: 'src/modules/payment-links/page/i18n.ts', source: String.raw`/\{(\w+)\}/g`, name: 'i18n', reaches: null, appliedTo: 'the page catalogue of the code', linear: 'code' },
  { file: 'src/modules/payment-links/payment-links.service.ts', source: String.raw`/_at_(gte|lte)$/`, name: 'payment links list name', reaches: 'request', appliedTo: 'query keys (only the schema\'s, unknown ones are dropped)', linear: 'a literal suffix at the end', attacks: [['_at_', ''], ['_at_gt', '']] },
  { file: 'src/modules/reports/csv.ts', source: String.raw`/^[=+\-@\t\r]/`, name: 'FORMULA_START', reaches: 'request', appliedTo: 'report cells (stored request data)', linear: 'anchored, one character' },
  { file: 'src/modules/reports/csv.ts', source: String.raw`/^-?\d+(\.\d+)?$/`, name: 'PLAIN_NUMBER', reaches: 'request', appliedTo: 'report cells', linear: 'anchored; digits, then an optional dot and digits', attacks: [['1', '-'], ['1.', '']] },
  { file: 'src/modules/reports/csv.ts', source: String.raw`/[",\r\n]/`, name: 'NEEDS_QUOTES', reaches: 'request', appliedTo: 'report cells', linear: 'one character class' },
  { file: 'src/modules/reports/csv.ts', source: String.raw`/"/g`, name: 'csv quotes', reaches: 'request', appliedTo: 'report cells', linear: 'a literal' },
  { file: 'src/modules/reports/report-download.service.ts', source: String.raw`/[^A-Za-z0-9._-]+/g`, name: 'report file name', reaches: 'request', appliedTo: 'report names (request body)', linear: 'one greedy class; a match is consumed whole', attacks: [['!', '']] },
  { file: 'src/modules/reports/zoned-time.ts', source: String.raw`/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/`, name: 'isTimeZone', reaches: 'request', appliedTo: 'time zone names (request body)', linear: 'anchored, bounded', attacks: [['a/', 'A']] },
  { file: 'src/modules/sandbox-approvals/sandbox-page.ts', source: String.raw`/[&<>"']/g`, name: 'sandbox page escape', reaches: 'request', appliedTo: 'text of the sandbox approval, 3DS challenge and Paze pages', linear: 'one character class' },
  { file: 'src/modules/sandbox-approvals/routes/sandbox-approval.ts', source: String.raw`/^https?:\/\//i`, name: 'safeReturn', reaches: 'request', appliedTo: 'redirect URLs (request body)', linear: 'anchored literal prefix' },
  { file: 'src/modules/transactions/list/list-transactions.service.ts', source: String.raw`/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i`, name: 'transaction list UUID', reaches: 'request', appliedTo: 'transaction list filters (query)', linear: 'anchored, fixed length' },
  { file: 'src/modules/transactions/list/list-transactions.service.ts', source: String.raw`/_at_(gte|lte)$/`, name: 'transaction list name', reaches: 'request', appliedTo: 'query keys (only the schema\'s)', linear: 'a literal suffix at the end', attacks: [['_at_', ''], ['_at_gt', '']] },
  { file: 'src/modules/transactions/transaction.resource.ts', source: String.raw`/^\d{2}$/`, name: 'iso_response_code', reaches: 'provider', appliedTo: 'response codes in provider answers', linear: 'anchored, fixed length' },
  { file: 'src/modules/vault-forward/authentication-fields.ts', source: '/^[a-z0-9!#$%&\'*+.^_`|~-]{1,64}$/', name: 'HEADER_NAME', reaches: 'request', appliedTo: 'authentication method fields (request body)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/modules/vault-forward/authentication-fields.ts', source: String.raw`/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/`, name: 'key_id', reaches: 'request', appliedTo: 'authentication method fields (request body)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/modules/vault-forward/authentication-fields.ts', source: String.raw`/PRIVATE KEY/`, name: 'mleKey', reaches: 'request', appliedTo: 'an mle public key (request body)', linear: 'a literal' },
  { file: 'src/modules/vault-forward/forward-authentications.ts', source: String.raw`/^\[|\]$/g`, name: 'loadAuthentications host', reaches: 'request', appliedTo: 'the target host of a forward (request header)', linear: 'a literal at the start or at the end', attacks: [[']', '']] },
  { file: 'src/modules/vault-forward/forward-request.ts', source: String.raw`/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i`, name: 'forward ids', reaches: 'request', appliedTo: 'ids in x-vault-forward-* headers', linear: 'anchored, fixed length' },
  { file: 'src/modules/vault-forward/forward-request.ts', source: String.raw`/^\d+$/`, name: 'x-vault-forward-timeout', reaches: 'request', appliedTo: 'the x-vault-forward-timeout header', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/modules/vault-forward/forward-target.ts', source: String.raw`/^url /`, name: 'refuseUrl', reaches: null, appliedTo: 'the URL checker\'s own messages', linear: 'anchored literal' },
  { file: 'src/modules/vault-forward/host-rules.ts', source: String.raw`/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/`, name: 'HOST_NAME', reaches: 'request', appliedTo: 'hosts of custom vault forward configs (request body)', linear: 'anchored; labels split by literal dots, each label\'s inner run backtracks once over that label', attacks: [['a-', ''], ['a.', ''], ['a.-', ''], ['*.', ''], ['a-', '', '-']] },
  { file: 'src/modules/vault-forward/host-rules.ts', source: String.raw`/^\[|\]$/g`, name: 'hostMatches', reaches: 'request', appliedTo: 'target hosts of forwards (request header)', linear: 'a literal at the start or at the end', attacks: [[']', '']] },
  { file: 'src/modules/vault-forward/host-rules.ts', source: String.raw`/^\[|\]$/g`, name: 'hostPatternProblem', reaches: 'request', appliedTo: 'hosts of custom configs (request body)', linear: 'a literal at the start or at the end', attacks: [[']', '']] },
  { file: 'src/modules/vault-forward/placeholders.ts', source: String.raw`/^([A-Z_]+?)_(\d{1,2})$/`, name: 'SHAPE', reaches: 'request', appliedTo: 'what a vault forward placeholder holds (request body)', linear: 'anchored at both ends: one start; each step of the lazy run tries a fixed-length tail', attacks: [['A_', ''], ['A_1', ''], ['_1', '']] },
  { file: 'src/wallets/apple-pay.ts', source: String.raw`/^([0-9a-fA-F]{2})+$/`, name: 'Apple Pay transactionId', reaches: 'request', appliedTo: 'Apple Pay tokens (request body)', linear: 'anchored; fixed-width groups of two', attacks: [['a', '', 'a!']] },
  { file: 'src/wallets/apple-pay.ts', source: String.raw`/^[0-9a-fA-F]*$/`, name: 'Apple Pay applicationData', reaches: 'request', appliedTo: 'Apple Pay tokens (request body)', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/wallets/apple-pay.ts', source: String.raw`/^\d{12,19}$/`, name: 'Apple Pay account number', reaches: 'request', appliedTo: 'decrypted Apple Pay tokens', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/wallets/apple-pay.ts', source: String.raw`/^\d{6}$/`, name: 'Apple Pay expiration', reaches: 'request', appliedTo: 'decrypted Apple Pay tokens', linear: 'anchored, fixed length' },
  { file: 'src/wallets/google-pay.ts', source: String.raw`/^\d{12,19}$/`, name: 'Google Pay account number', reaches: 'request', appliedTo: 'decrypted Google Pay tokens', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/wallets/paze.ts', source: String.raw`/^\d{9,11}$/`, name: 'Paze expiry seconds', reaches: 'request', appliedTo: 'decrypted Paze payloads', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/wallets/paze.ts', source: String.raw`/^\d{12,14}$/`, name: 'Paze expiry milliseconds', reaches: 'request', appliedTo: 'decrypted Paze payloads', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/wallets/paze.ts', source: String.raw`/^\d{1,12}(\.\d{1,4})?$/`, name: 'Paze amount', reaches: 'request', appliedTo: 'decrypted Paze payloads', linear: 'anchored, bounded', attacks: [['1', ''], ['1', '1.']] },
  { file: 'src/wallets/paze.ts', source: String.raw`/^\d{12,19}$/`, name: 'Paze token number', reaches: 'request', appliedTo: 'decrypted Paze payloads', linear: 'anchored at both ends; one character class, bounded' },
  { file: 'src/wallets/paze.ts', source: String.raw`/^(0[1-9]|1[0-2])$/`, name: 'Paze expiration month', reaches: 'request', appliedTo: 'decrypted Paze payloads', linear: 'anchored, fixed alternation' },
  { file: 'src/wallets/paze.ts', source: String.raw`/^(\d{2}|\d{4})$/`, name: 'Paze expiration year', reaches: 'request', appliedTo: 'decrypted Paze payloads', linear: 'anchored, fixed alternation' },
  { file: 'src/wallets/pkcs7.ts', source: String.raw`/\n/g`, name: 'certificate subject', reaches: 'request', appliedTo: 'subjects of wallet token certificates (request body)', linear: 'a literal' },
  { file: 'src/wallets/sandbox-tokens.ts', source: String.raw`/^[25]/`, name: 'sandbox Paze network', reaches: 'request', appliedTo: 'sandbox card numbers (request body)', linear: 'anchored, one character' },
  { file: 'src/wallets/token-error.ts', source: String.raw`/^[A-Za-z0-9+/_-]+={0,2}$/`, name: 'base64Field', reaches: 'request', appliedTo: 'wallet token fields (request body)', linear: 'anchored; one class, then at most two `=`', attacks: [['a', '', '=!'], ['a', '', '==='], ['=', 'a']] },
  { file: 'src/wallets/token-use.ts', source: String.raw`/^\d{1,3}$/`, name: 'token-use currency', reaches: 'request', appliedTo: 'currency codes in decrypted Apple Pay tokens', linear: 'anchored, at most 3' },
];

/** Hand-written scans that took the place of a pattern, or do what a pattern would: each runs on the same inputs. */
export interface ScanEntry {
  file: string;
  name: string;
  reaches: Exclude<Reach, null>;
  appliedTo: string;
  linear: string;
  run: (input: string) => unknown;
  attacks?: Array<[string, string, string?]>;
}

const CARDS: ForwardCard[] = [
  { number: '4111111111111111', expirationDate: '07/30', holderName: null, securityCode: null },
  { number: '4242424242424242', expirationDate: '07/30', holderName: null, securityCode: null },
];
const quietly = (work: () => unknown) => () => {
  try {
    work();
  } catch {
    // A refusal is an answer too: only the time counts here.
  }
};

export const SCANS: ScanEntry[] = [
  {
    file: 'src/modules/vault-forward/placeholders.ts', name: 'placeholdersOf', reaches: 'request', appliedTo: 'vault forward bodies',
    linear: 'a `{{` is a placeholder exactly when the first brace after it starts `}}`; else the search goes on from that brace, so each character is read a bounded number of times',
    run: (input) => quietly(() => placeholdersOf(input, 2))(),
    attacks: [['{{ ', ''], ['{{', ''], [' ', '{{'], ['{{A', ''], ['{{CARD_NUMBER_1}}', ''], ['A', '{{ ', ' }}'], ['}', '{{']],
  },
  {
    file: 'src/modules/vault-forward/placeholders.ts', name: 'fillPlaceholders', reaches: 'request', appliedTo: 'vault forward bodies',
    linear: 'one scan (placeholdersOf), then one pass that copies the text between placeholders; each distinct placeholder is read once',
    run: (input) => quietly(() => fillPlaceholders(input, CARDS))(),
    attacks: [['{{CARD_NUMBER_1}}', ''], ['{{ CARD_EXPIRATION_DATE_2 }}x', '']],
  },
  {
    file: 'src/modules/vault-forward/placeholders.ts', name: 'maskCardNumbers', reaches: 'provider', appliedTo: 'answers of vault forward targets (body and headers)',
    linear: 'each digit run is read once (at most three separators looked at after each digit); each card number is looked for in the run\'s digits, matches marked in a flag per digit',
    run: (input) => maskCardNumbers(input, CARDS),
    attacks: [['4', ''], ['4 ', ''], ['4 - ', ''], ['42', ''], ['4111111111111111', ''], ['4111 1111 1111 1111 ', ''], ['%20', '4'], ['4\u0000', '']],
  },
  {
    file: 'src/lib/redact.ts', name: 'scrubString', reaches: 'log', appliedTo: 'logged strings (request data may reach a log line)',
    linear: 'its patterns (DIGIT_RUN, WEBHOOK_SECRET, PEM_PRIVATE, above) and two scans: JWTs (every `eyJ` of a run of token characters ends where the run ends, so the run is tried once) and Luhn windows (running sums: 8 additions per digit)',
    run: scrubString,
    attacks: [['1', ''], ['1 ', ''], ['4111111111111111 ', ''], ['eyJ', ''], ['eyJaaaaa.', ''], ['aeyJaaaaa.aaaaa', ''], ['-----BEGIN PRIVATE KEY-----', ''], ['whsec_', '']],
  },
  {
    file: 'src/connectors/braintree/braintree.xml.ts', name: 'parseXml', reaches: 'provider', appliedTo: 'Braintree XML (webhook payloads)',
    linear: 'TOKEN and ATTRIBUTE are sticky: one try where the previous token ended, and the parse stops at the first place none starts',
    run: parseXml,
    attacks: [['<?', ''], ['<!--', ''], ['<a x="', ''], ['<a>', ''], [' x="1"', '<a'], ['<a>x</a>', '<r>', '</r>']],
  },
  {
    file: 'src/modules/vault-forward/authentication-fields.ts', name: 'pemBlocks', reaches: 'request', appliedTo: 'PEM certificates of mtls authentication methods (request body)',
    linear: 'from each BEGIN line to the first END line after it (indexOf); it stops at the first BEGIN line without one',
    run: pemBlocks,
    attacks: [['-----BEGIN CERTIFICATE-----', ''], ['-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n', ''], ['-----END CERTIFICATE-----', '-----BEGIN CERTIFICATE-----']],
  },
];
