import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { Type, type Static } from 'typebox';
import type { DashboardPasskeyRow } from '../../db/schema-dashboard.ts';
import { DateTime, Nullable, StringEnum, Uuid } from '../../http/schemas/common.ts';

/** WebAuthn's JSON forms (WebAuthn level 3, the `toJSON()` of a credential), as the console sends them. */

const Base64Url = (maxLength: number, description?: string) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength, ...(description ? { description } : {}) });

const Transports = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 });

const CredentialCommon = {
  id: Base64Url(1400, 'The credential id, base64url'),
  rawId: Base64Url(1400),
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(StringEnum(['platform', 'cross-platform'] as const)),
  clientExtensionResults: Type.Record(Type.String(), Type.Unknown()),
};

export const PasskeyRegistrationBody = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'A name to tell the passkey apart (the device)' }),
    ),
    credential: Type.Object(
      {
        ...CredentialCommon,
        response: Type.Object(
          {
            clientDataJSON: Base64Url(4096),
            attestationObject: Base64Url(16384),
            transports: Type.Optional(Transports),
            authenticatorData: Type.Optional(Base64Url(16384)),
            publicKey: Type.Optional(Base64Url(4096)),
            publicKeyAlgorithm: Type.Optional(Type.Integer()),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false, description: 'The answer of navigator.credentials.create(), as JSON' },
    ),
  },
  { additionalProperties: false },
);
export type PasskeyRegistrationBody = Static<typeof PasskeyRegistrationBody>;

export const PasskeySignInBody = Type.Object(
  {
    credential: Type.Object(
      {
        ...CredentialCommon,
        response: Type.Object(
          {
            clientDataJSON: Base64Url(4096),
            authenticatorData: Base64Url(16384),
            signature: Base64Url(2048),
            userHandle: Type.Optional(Base64Url(128)),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false, description: 'The answer of navigator.credentials.get(), as JSON' },
    ),
  },
  { additionalProperties: false },
);
export type PasskeySignInBody = Static<typeof PasskeySignInBody>;

const CredentialDescriptor = Type.Object(
  { id: Type.String(), type: Type.Literal('public-key'), transports: Type.Optional(Type.Array(Type.String())) },
  { additionalProperties: false },
);

export const PasskeyRegistrationOptionsSchema = Type.Object(
  {
    type: Type.Literal('passkey-registration-options'),
    public_key: Type.Object(
      {
        rp: Type.Object({ name: Type.String(), id: Type.String() }, { additionalProperties: false }),
        user: Type.Object(
          { id: Type.String(), name: Type.String(), displayName: Type.String() },
          { additionalProperties: false },
        ),
        challenge: Type.String(),
        pubKeyCredParams: Type.Array(
          Type.Object({ alg: Type.Integer(), type: Type.Literal('public-key') }, { additionalProperties: false }),
        ),
        timeout: Type.Integer(),
        excludeCredentials: Type.Array(CredentialDescriptor),
        authenticatorSelection: Type.Object(
          {
            residentKey: Type.String(),
            userVerification: Type.String(),
            requireResidentKey: Type.Boolean(),
          },
          { additionalProperties: false },
        ),
        attestation: Type.String(),
      },
      {
        additionalProperties: false,
        description:
          "PublicKeyCredentialCreationOptionsJSON: binary fields base64url; for navigator.credentials.create()'s publicKey",
      },
    ),
  },
  { additionalProperties: false, title: 'PasskeyRegistrationOptions' },
);

export const PasskeySignInOptionsSchema = Type.Object(
  {
    type: Type.Literal('passkey-sign-in-options'),
    public_key: Type.Object(
      {
        rpId: Type.String(),
        challenge: Type.String(),
        timeout: Type.Integer(),
        allowCredentials: Type.Array(CredentialDescriptor),
        userVerification: Type.String(),
      },
      {
        additionalProperties: false,
        description:
          "PublicKeyCredentialRequestOptionsJSON: binary fields base64url; for navigator.credentials.get()'s publicKey",
      },
    ),
  },
  { additionalProperties: false, title: 'PasskeySignInOptions' },
);

export const PasskeySchema = Type.Object(
  {
    type: Type.Literal('dashboard-passkey'),
    id: Uuid(),
    name: Type.String(),
    transports: Type.Array(Type.String()),
    created_at: DateTime(),
    last_used_at: Nullable(DateTime()),
  },
  { additionalProperties: false, title: 'DashboardPasskey' },
);
export type Passkey = Static<typeof PasskeySchema>;

export const PasskeyListSchema = Type.Object(
  { items: Type.Array(PasskeySchema) },
  { additionalProperties: false, title: 'DashboardPasskeyList' },
);

export const PasskeyParams = Type.Object({ passkey_id: Uuid() }, { additionalProperties: false });

export function toPasskeyResource(row: DashboardPasskeyRow): Passkey {
  return {
    type: 'dashboard-passkey',
    id: row.id,
    name: row.name,
    transports: row.transports,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

type CredentialDescriptorJson = { id: string; transports?: readonly string[] | undefined };
const toDescriptor = (c: CredentialDescriptorJson) => ({
  id: c.id,
  type: 'public-key' as const,
  ...(c.transports ? { transports: [...c.transports] } : {}),
});

export function toRegistrationOptionsResource(
  options: PublicKeyCredentialCreationOptionsJSON,
): Static<typeof PasskeyRegistrationOptionsSchema> {
  return {
    type: 'passkey-registration-options',
    public_key: {
      rp: { name: options.rp.name, id: options.rp.id! },
      user: options.user,
      challenge: options.challenge,
      pubKeyCredParams: options.pubKeyCredParams.map((p) => ({ alg: p.alg, type: 'public-key' as const })),
      timeout: options.timeout!,
      excludeCredentials: (options.excludeCredentials ?? []).map(toDescriptor),
      authenticatorSelection: {
        residentKey: options.authenticatorSelection?.residentKey ?? 'preferred',
        userVerification: options.authenticatorSelection?.userVerification ?? 'preferred',
        requireResidentKey: options.authenticatorSelection?.requireResidentKey ?? false,
      },
      attestation: options.attestation ?? 'none',
    },
  };
}

export function toSignInOptionsResource(
  options: PublicKeyCredentialRequestOptionsJSON,
): Static<typeof PasskeySignInOptionsSchema> {
  return {
    type: 'passkey-sign-in-options',
    public_key: {
      rpId: options.rpId!,
      challenge: options.challenge,
      timeout: options.timeout!,
      allowCredentials: (options.allowCredentials ?? []).map(toDescriptor),
      userVerification: options.userVerification ?? 'preferred',
    },
  };
}
