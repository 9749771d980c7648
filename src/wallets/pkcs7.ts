import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  Attribute,
  CertificateChoices,
  CertificateSet,
  ContentInfo,
  DigestAlgorithmIdentifiers,
  EncapsulatedContentInfo,
  id_data,
  id_signedData,
  IssuerAndSerialNumber,
  SignedData,
  SignerIdentifier,
  SignerInfo,
  SignerInfos,
} from '@peculiar/asn1-cms';
import { AlgorithmIdentifier, Certificate, Time } from '@peculiar/asn1-x509';
import { createHash, sign, timingSafeEqual, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { fail } from './token-error.ts';
import { ECDSA_WITH_SHA256, extensionIds, toArrayBuffer } from './x509.ts';

/**
 * Detached PKCS#7 (CMS SignedData) signatures as Apple Pay uses them: the signer's leaf and
 * intermediate certificates travel in the signature, the root is ours to trust. Parsing and
 * encoding by @peculiar/asn1-cms; digests, signatures and chain checks by node:crypto.
 */

const SHA256 = '2.16.840.1.101.3.4.2.1';
const CONTENT_TYPE = '1.2.840.113549.1.9.3';
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const SIGNING_TIME = '1.2.840.113549.1.9.5';
/** DER of the OBJECT IDENTIFIER id-data (1.2.840.113549.1.7.1). */
const ID_DATA_DER = Buffer.from('06092a864886f70d010701', 'hex');

export interface ChainRules {
  /** Trusted roots: the intermediate must be issued by one of them. */
  roots: readonly X509Certificate[];
  /** Extension that marks the leaf (signing) certificate. */
  leafMarker: string;
  /** Extension that marks the intermediate certificate. */
  intermediateMarker: string;
  now: Date;
  /** How old the signing time may be. */
  maxAgeSeconds: number;
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n >>= 8) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** The DER SET OF the encoded attributes, in the given order. */
function attributeSet(encoded: Buffer[]): Buffer {
  const body = Buffer.concat(encoded);
  return Buffer.concat([Buffer.from([0x31]), derLength(body.length), body]);
}

const within = (cert: X509Certificate, now: Date) => new Date(cert.validFrom) <= now && now <= new Date(cert.validTo);

function certificatesOf(signed: SignedData): Array<{ der: Buffer; x509: X509Certificate; markers: string[] }> {
  return (signed.certificates ?? []).flatMap((choice) => {
    if (!choice.certificate) return [];
    const der = Buffer.from(AsnConvert.serialize(choice.certificate));
    return [{ der, x509: new X509Certificate(der), markers: extensionIds(der) }];
  });
}

/** The leaf certificate after checking leaf ← intermediate ← a trusted root, all valid now. */
function checkChain(signed: SignedData, rules: ChainRules): X509Certificate {
  const certificates = certificatesOf(signed);
  const leaf =
    certificates.find((c) => c.markers.includes(rules.leafMarker))?.x509 ??
    fail('signature', 'The signature carries no leaf certificate with the wallet signing extension');
  const intermediate =
    certificates.find((c) => c.markers.includes(rules.intermediateMarker))?.x509 ??
    fail('signature', 'The signature carries no intermediate certificate with the wallet intermediate extension');
  if (!leaf.checkIssued(intermediate) || !leaf.verify(intermediate.publicKey))
    fail('signature', 'The leaf certificate is not signed by the intermediate certificate');
  const root = rules.roots.find((r) => intermediate.checkIssued(r) && intermediate.verify(r.publicKey));
  if (!root) fail('signature', 'The intermediate certificate is not signed by a trusted root certificate');
  for (const cert of [leaf, intermediate, root!])
    if (!within(cert, rules.now))
      fail('signature', `The certificate ${cert.subject.replace(/\n/g, ', ')} is not valid at this time`);
  return leaf;
}

const attribute = (signer: SignerInfo, oid: string): ArrayBuffer =>
  signer.signedAttrs?.find((a) => a.attrType === oid)?.attrValues[0] ??
  fail('signature', `The signature has no signed attribute ${oid}`);

/** Verifies a detached signature over `content`; returns the signing time. Throws WalletTokenError. */
export function verifyDetached(signatureDer: Buffer, content: Buffer, rules: ChainRules): Date {
  let signed: SignedData;
  try {
    const info = AsnConvert.parse(signatureDer, ContentInfo);
    if (info.contentType !== id_signedData) fail('signature', 'The signature is not PKCS#7 signed data');
    signed = AsnConvert.parse(info.content, SignedData);
  } catch (error) {
    return fail('signature', `The signature is not valid PKCS#7: ${(error as Error).message.slice(0, 120)}`);
  }
  const leaf = checkChain(signed, rules);
  const signer = signed.signerInfos[0] ?? fail('signature', 'The signature has no signer');
  if (!signer.signedAttrs?.length) fail('signature', 'The signature has no signed attributes');
  const digest = Buffer.from(AsnConvert.parse(attribute(signer, MESSAGE_DIGEST), OctetString).buffer);
  const expected = createHash('sha256').update(content).digest();
  if (digest.length !== expected.length || !timingSafeEqual(digest, expected))
    fail('signature', 'The signature does not match the token data (tampered or altered)');
  // The signature covers the DER of the attributes as a SET (tag 0x31), not the [0] IMPLICIT form;
  // re-encoded in the order received (DER input re-encodes to the same bytes).
  const signedBytes = attributeSet(signer.signedAttrs!.map((a) => Buffer.from(AsnConvert.serialize(a))));
  if (!verify('sha256', signedBytes, leaf.publicKey, Buffer.from(signer.signature.buffer)))
    fail('signature', 'The signature does not verify with the leaf certificate');
  const signingTime = AsnConvert.parse(attribute(signer, SIGNING_TIME), Time).getTime();
  const age = (rules.now.getTime() - signingTime.getTime()) / 1000;
  if (age > rules.maxAgeSeconds)
    fail(
      'expired',
      `The token was signed ${Math.round(age)} seconds ago; tokens older than ${rules.maxAgeSeconds} seconds are refused`,
    );
  // A small allowance for clock drift between the wallet's signer and this server.
  if (age < -300) fail('expired', 'The token signing time is in the future');
  return signingTime;
}

export interface Signer {
  leaf: Buffer;
  intermediate: Buffer;
  key: KeyObject;
}

/** Makes a detached signature over `content` (sandbox and test tokens). */
export function signDetached(content: Buffer, signer: Signer, signingTime: Date): Buffer {
  const values: Array<[string, Buffer]> = [
    [CONTENT_TYPE, ID_DATA_DER],
    [SIGNING_TIME, Buffer.from(AsnConvert.serialize(new Time(signingTime)))],
    [MESSAGE_DIGEST, Buffer.from(AsnConvert.serialize(new OctetString(createHash('sha256').update(content).digest())))],
  ];
  const attributes = values.map(([oid, value]) => new Attribute({ attrType: oid, attrValues: [toArrayBuffer(value)] }));
  // DER orders a SET OF by its members' encodings.
  const encoded = attributes
    .map((a) => ({ a, der: Buffer.from(AsnConvert.serialize(a)) }))
    .sort((x, y) => Buffer.compare(x.der, y.der));
  const signature = sign('sha256', attributeSet(encoded.map((e) => e.der)), signer.key);
  const leaf = AsnConvert.parse(signer.leaf, Certificate);
  const info = new SignerInfo({
    version: 1,
    sid: new SignerIdentifier({
      issuerAndSerialNumber: new IssuerAndSerialNumber({
        issuer: leaf.tbsCertificate.issuer,
        serialNumber: leaf.tbsCertificate.serialNumber,
      }),
    }),
    digestAlgorithm: new AlgorithmIdentifier({ algorithm: SHA256 }),
    signedAttrs: encoded.map((e) => e.a),
    signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    signature: new OctetString(signature),
  });
  const signed = new SignedData({
    version: 1,
    digestAlgorithms: new DigestAlgorithmIdentifiers([new AlgorithmIdentifier({ algorithm: SHA256 })]),
    encapContentInfo: new EncapsulatedContentInfo({ eContentType: id_data }),
    certificates: new CertificateSet(
      [leaf, AsnConvert.parse(signer.intermediate, Certificate)].map(
        (certificate) => new CertificateChoices({ certificate }),
      ),
    ),
    signerInfos: new SignerInfos([info]),
  });
  return Buffer.from(
    AsnConvert.serialize(new ContentInfo({ contentType: id_signedData, content: AsnConvert.serialize(signed) })),
  );
}
