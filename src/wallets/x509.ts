import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  BasicConstraints,
  Certificate,
  Extension,
  Extensions,
  id_ce_basicConstraints,
  Name,
  RelativeDistinguishedName,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
} from '@peculiar/asn1-x509';
import { sign, type KeyObject } from 'node:crypto';

/**
 * Minimal X.509 for wallet tokens: reading a certificate's extension ids (node:crypto's
 * X509Certificate does not expose them) and issuing the sandbox's own test certificates. ASN.1 is
 * done by @peculiar/asn1-x509; every signature and check by node:crypto (docs/digital-wallets.md).
 */

export const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** The extension OIDs of a DER certificate. */
export function extensionIds(der: Uint8Array): string[] {
  const certificate = AsnConvert.parse(der, Certificate);
  return (certificate.tbsCertificate.extensions ?? []).map((e) => e.extnID);
}

const nameOf = (commonName: string) =>
  new Name([
    new RelativeDistinguishedName([
      new AttributeTypeAndValue({ type: '2.5.4.3', value: new AttributeValue({ utf8String: commonName }) }),
    ]),
  ]);

export interface CertificateRequest {
  subject: string;
  issuer: string;
  serial: number;
  publicKey: KeyObject;
  issuerKey: KeyObject;
  ca: boolean;
  /** Extra extensions by OID (marker extensions such as Apple's), value DER NULL. */
  markers?: string[];
  notBefore: Date;
  notAfter: Date;
}

/** Issues a DER certificate signed with ECDSA P-256/SHA-256 (sandbox and test chains only). */
export function issueCertificate(req: CertificateRequest): Buffer {
  const algorithm = new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 });
  const extensions = [
    new Extension({
      extnID: id_ce_basicConstraints,
      critical: true,
      extnValue: new OctetString(AsnConvert.serialize(new BasicConstraints({ cA: req.ca }))),
    }),
  ];
  for (const oid of req.markers ?? [])
    extensions.push(
      new Extension({ extnID: oid, critical: false, extnValue: new OctetString(new Uint8Array([5, 0])) }),
    );
  const tbs = new TBSCertificate({
    version: 2,
    serialNumber: toArrayBuffer(new Uint8Array([req.serial & 0x7f])),
    signature: algorithm,
    issuer: nameOf(req.issuer),
    subject: nameOf(req.subject),
    validity: new Validity({ notBefore: req.notBefore, notAfter: req.notAfter }),
    subjectPublicKeyInfo: AsnConvert.parse(req.publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo),
    extensions: new Extensions(extensions),
  });
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(tbs)), req.issuerKey);
  return Buffer.from(
    AsnConvert.serialize(
      new Certificate({ tbsCertificate: tbs, signatureAlgorithm: algorithm, signatureValue: toArrayBuffer(signature) }),
    ),
  );
}

export { toArrayBuffer };
