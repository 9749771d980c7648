import type { VaultForwardAuthenticationKind } from '../../db/schema-vault-forward.ts';

/**
 * The built-in catalogue of vault forwarding targets. A definition names a target and pins its
 * hosts; a merchant account's config of it adds those hosts to the account's allow-list. `custom`
 * has no hosts of its own: its config lists the merchant's. Every authentication kind may be set up
 * for any definition: which one a target needs is for its contract to say.
 */

export type FieldFormat = 'text' | 'multiline' | 'file' | 'number';

export interface AuthenticationField {
  key: string;
  display_name: string;
  required: boolean;
  format: FieldFormat;
  /** Stored sealed by the vault and never returned. */
  secret: boolean;
  description: string;
}

export interface AuthenticationDefinition {
  kind: VaultForwardAuthenticationKind;
  title: string;
  description: string;
  fields: AuthenticationField[];
}

export interface ForwardDefinition {
  id: string;
  display_name: string;
  /** Exact host names or `*.example.com` (any subdomain). Empty for `custom`. */
  hosts: string[];
}

export const CUSTOM_DEFINITION_ID = 'custom';

const field = (
  key: string,
  display_name: string,
  format: FieldFormat,
  required: boolean,
  secret: boolean,
  description: string,
): AuthenticationField => ({ key, display_name, required, format, secret, description });

export const SIGNATURE_DEFAULTS = {
  signature_header: 'signature',
  date_header: 'date',
  digest_header: 'digest',
} as const;
export const MLE_ALGORITHMS = ['RSA-OAEP-256', 'ECDH-ES', 'ECDH-ES+A256KW'] as const;
export const MLE_ENCRYPTIONS = ['A256GCM', 'A128GCM'] as const;

export const AUTHENTICATION_DEFINITIONS: readonly AuthenticationDefinition[] = [
  {
    kind: 'signature',
    title: 'Request signing (HMAC-SHA256)',
    description:
      'Adds a date header, a digest header (`SHA-256=` and the base64 SHA-256 of the body as sent) and a signature header ' +
      '`keyId="…",algorithm="hmac-sha256",headers="(request-target) <date> <digest>",signature="…"`: the base64 HMAC-SHA256, under the shared secret, of the lines ' +
      '`(request-target): <method in lower case> <path and query>`, `<date header>: <value>`, `<digest header>: <value>` joined by line feeds.',
    fields: [
      field('key_id', 'Key id', 'text', true, false, 'Sent as keyId: tells the target which secret signed'),
      field('secret', 'Shared secret', 'text', true, true, 'The HMAC key (its UTF-8 bytes), at least 32 characters'),
      field(
        'signature_header',
        'Signature header',
        'text',
        false,
        false,
        `Header carrying the signature (default ${SIGNATURE_DEFAULTS.signature_header})`,
      ),
      field(
        'date_header',
        'Date header',
        'text',
        false,
        false,
        `Header carrying the HTTP date (default ${SIGNATURE_DEFAULTS.date_header})`,
      ),
      field(
        'digest_header',
        'Digest header',
        'text',
        false,
        false,
        `Header carrying the body digest (default ${SIGNATURE_DEFAULTS.digest_header})`,
      ),
    ],
  },
  {
    kind: 'mtls',
    title: 'Mutual TLS',
    description:
      'Presents a client certificate on the TLS connection to the target (https targets only; one per request).',
    fields: [
      field(
        'certificate',
        'Client certificate',
        'multiline',
        true,
        true,
        'PEM; the client certificate first, then any intermediate certificates',
      ),
      field('private_key', 'Private key', 'multiline', true, true, 'PEM private key of the certificate'),
      field(
        'private_key_passphrase',
        'Private key passphrase',
        'text',
        false,
        true,
        'When the private key is encrypted',
      ),
      field(
        'ca_certificates',
        'Target CA certificates',
        'multiline',
        false,
        false,
        "PEM certificates of the CAs that issued the target's server certificate, trusted besides the default roots",
      ),
    ],
  },
  {
    kind: 'mle',
    title: 'Message-level encryption (JWE)',
    description:
      'Replaces the body with a compact JWE encrypted with the target\'s public key (content type application/jose), or with `{"<body_field>": "<JWE>"}` when body_field is set.',
    fields: [
      field(
        'public_key',
        "Target's public key",
        'multiline',
        true,
        false,
        'PEM public key or certificate of the target: RSA (2048 bits or more) for RSA-OAEP-256, EC P-256/P-384/P-521 or X25519 for ECDH-ES',
      ),
      field('key_id', 'Key id', 'text', false, false, 'Sent as the JWE kid header'),
      field(
        'alg',
        'Key management algorithm',
        'text',
        false,
        false,
        `${MLE_ALGORITHMS.join(', ')} (default ${MLE_ALGORITHMS[0]})`,
      ),
      field(
        'enc',
        'Content encryption',
        'text',
        false,
        false,
        `${MLE_ENCRYPTIONS.join(', ')} (default ${MLE_ENCRYPTIONS[0]})`,
      ),
      field(
        'body_field',
        'Body field',
        'text',
        false,
        false,
        'When set, the JWE is sent as this field of a JSON object (e.g. encData)',
      ),
    ],
  },
];

export const FORWARD_DEFINITIONS: readonly ForwardDefinition[] = [
  { id: 'amadeus', display_name: 'Amadeus', hosts: ['api.amadeus.com', 'test.api.amadeus.com'] },
  { id: 'sabre', display_name: 'Sabre', hosts: ['api.sabre.com', 'api.cert.platform.sabre.com'] },
  { id: 'visa', display_name: 'Visa Developer Platform', hosts: ['api.visa.com', 'sandbox.api.visa.com'] },
  {
    id: 'mastercard',
    display_name: 'Mastercard Developers',
    hosts: ['api.mastercard.com', 'sandbox.api.mastercard.com'],
  },
  { id: CUSTOM_DEFINITION_ID, display_name: 'Custom target', hosts: [] },
];

export const findDefinition = (id: string): ForwardDefinition | undefined =>
  FORWARD_DEFINITIONS.find((d) => d.id === id);

export function authenticationDefinition(kind: VaultForwardAuthenticationKind): AuthenticationDefinition {
  const found = AUTHENTICATION_DEFINITIONS.find((d) => d.kind === kind);
  if (!found) throw new Error(`no authentication definition for ${kind}`);
  return found;
}
