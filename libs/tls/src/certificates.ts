/**
 * Certificates Steward issues (docs/design/tls.md): a CA per cluster and the server and client
 * certificates it signs — ECDSA P-256 keys from Node's WebCrypto, X.509 v3 certificates built with
 * PKI.js. Everything is PEM: certificates as `CERTIFICATE`, keys as PKCS#8 `PRIVATE KEY` (what
 * `kubernetes.io/tls` Secrets, OpenSSL, PostgreSQL and Redis/Valkey read). Nothing is written to
 * disk and no key is logged: the caller puts them in a Secret.
 *
 * Reading a certificate (`certificateFacts`) uses Node's own X509Certificate, so what the
 * controller checks — names, validity, the issuer — is what OpenSSL will check.
 */
import { createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const subtle = webcrypto.subtle;
const Ecdsa = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const Hash = 'SHA-256';

let engineSet = false;
function engine(): void {
  if (engineSet) return;
  pkijs.setEngine('steward', new pkijs.CryptoEngine({ name: 'steward', crypto: webcrypto }));
  engineSet = true;
}

/** A certificate and its private key, both PEM. */
export interface IssuedCertificate {
  certificate: string;
  privateKey: string;
}

/** What a certificate is for: a server (TLS serverAuth), a client (clientAuth), or both. */
export type CertificateUsage = 'server' | 'client' | 'server-and-client';

export interface CertificateAuthorityOptions {
  commonName: string;
  validityDays: number;
  /** The start of its validity (default now); a minute is taken off for clock skew. */
  now?: Date;
}

export interface IssueOptions {
  ca: IssuedCertificate;
  commonName: string;
  /** subjectAltName dNSName entries (wildcards as `*.x`); clients verify the host against these. */
  dnsNames?: string[];
  usage: CertificateUsage;
  validityDays: number;
  now?: Date;
}

const Oid = {
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** Key usage bits (RFC 5280 4.2.1.3), as the first byte of the BIT STRING. */
const KeyUsageBits = { digitalSignature: 0x80, keyCertSign: 0x04, cRLSign: 0x02 } as const;
const SkewMs = 60_000;
const DayMs = 86_400_000;

/** A new self-signed CA (CA:TRUE, pathlen 0, keyCertSign + cRLSign). */
export async function createCertificateAuthority(
  options: CertificateAuthorityOptions,
): Promise<IssuedCertificate> {
  engine();
  const keys = await generateKeys();
  const spki = await publicKeyInfo(keys.publicKey);
  const keyId = await keyIdentifier(spki);
  const certificate = baseCertificate(options.commonName, undefined, spki, options);
  certificate.extensions = [
    basicConstraints(true),
    keyUsage(KeyUsageBits.keyCertSign | KeyUsageBits.cRLSign),
    subjectKeyIdentifier(keyId),
  ];
  await certificate.sign(keys.privateKey, Hash);
  return { certificate: pem('CERTIFICATE', der(certificate)), privateKey: await privatePem(keys) };
}

/** A certificate signed by `ca`: a leaf (CA:FALSE, digitalSignature, the usage's extKeyUsage). */
export async function issueCertificate(options: IssueOptions): Promise<IssuedCertificate> {
  engine();
  const caFacts = new X509Certificate(options.ca.certificate);
  if (!caFacts.ca) throw new TypeError('issueCertificate: the issuer is not a CA certificate');
  const caKey = await subtle.importKey(
    'pkcs8',
    unpem(options.ca.privateKey, 'PRIVATE KEY'),
    Ecdsa,
    false,
    ['sign'],
  );
  const caCertificate = pkijs.Certificate.fromBER(caFacts.raw);
  const keys = await generateKeys();
  const spki = await publicKeyInfo(keys.publicKey);
  const certificate = baseCertificate(
    options.commonName,
    // The issuer is the CA's subject exactly as it is encoded there (chain building compares them).
    caCertificate.subject,
    spki,
    options,
    // Never beyond the CA's own validity: a chain is only as valid as its shortest link.
    new Date(caFacts.validTo),
  );
  const dnsNames = options.dnsNames ?? [];
  certificate.extensions = [
    basicConstraints(false),
    keyUsage(KeyUsageBits.digitalSignature),
    extKeyUsage(options.usage),
    subjectKeyIdentifier(await keyIdentifier(spki)),
    authorityKeyIdentifier(await keyIdentifier(caCertificate.subjectPublicKeyInfo)),
    ...(dnsNames.length ? [subjectAltName(dnsNames)] : []),
  ];
  await certificate.sign(caKey, Hash);
  return { certificate: pem('CERTIFICATE', der(certificate)), privateKey: await privatePem(keys) };
}

/** What the controller reads of a certificate (never its key). */
export interface CertificateFacts {
  subject: string;
  issuer: string;
  /** The subject's common name. */
  commonName: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  dnsNames: string[];
  isCA: boolean;
  fingerprint256: string;
}

/** The facts of the first certificate of a PEM bundle. */
export function certificateFacts(certificatePem: string): CertificateFacts {
  const x = new X509Certificate(certificatePem);
  return {
    subject: x.subject,
    issuer: x.issuer,
    commonName: commonNameOf(x),
    serialNumber: x.serialNumber,
    notBefore: new Date(x.validFrom),
    notAfter: new Date(x.validTo),
    dnsNames: (x.subjectAltName ?? '')
      .split(', ')
      .filter((n) => n.startsWith('DNS:'))
      .map((n) => n.slice(4)),
    isCA: x.ca,
    fingerprint256: x.fingerprint256,
  };
}

/**
 * When a certificate is to be renewed: `fraction` of its life after it starts (default two
 * thirds — a 90-day certificate 30 days before it expires).
 */
export function renewAt(facts: Pick<CertificateFacts, 'notBefore' | 'notAfter'>, fraction = 2 / 3) {
  const start = facts.notBefore.getTime();
  return new Date(start + (facts.notAfter.getTime() - start) * fraction);
}

/** The host names of `names` the certificate does not cover (its SANs, wildcards as OpenSSL). */
export function uncoveredNames(certificatePem: string, names: string[]): string[] {
  const x = new X509Certificate(certificatePem);
  return names.filter((n) => x.checkHost(n, { subject: 'never' }) === undefined);
}

/** Whether `certificatePem` was signed by `caPem`'s key and the CA is a CA. */
export function signedBy(certificatePem: string, caPem: string): boolean {
  const ca = new X509Certificate(caPem);
  const x = new X509Certificate(certificatePem);
  return ca.ca && x.checkIssued(ca) && x.verify(ca.publicKey);
}

/** Whether a private key (PEM) is the key of a certificate (PEM). */
export function keyMatches(certificatePem: string, privateKeyPem: string): boolean {
  return new X509Certificate(certificatePem).checkPrivateKey(createPrivateKey(privateKeyPem));
}

// ── building blocks ───────────────────────────────────────────────────────────────────────────

async function generateKeys(): Promise<CryptoKeyPair> {
  return (await subtle.generateKey(Ecdsa, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function publicKeyInfo(publicKey: CryptoKey): Promise<pkijs.PublicKeyInfo> {
  const spki = new pkijs.PublicKeyInfo();
  await spki.importKey(publicKey);
  return spki;
}

/** RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING's value. */
async function keyIdentifier(spki: pkijs.PublicKeyInfo): Promise<ArrayBuffer> {
  return subtle.digest('SHA-1', spki.subjectPublicKey.valueBlock.valueHexView);
}

/** A certificate for `subject`, issued by `issuer` (the issuer's own subject; none: self-issued). */
function baseCertificate(
  subject: string,
  issuer: pkijs.RelativeDistinguishedNames | undefined,
  spki: pkijs.PublicKeyInfo,
  validity: { validityDays: number; now?: Date },
  notAfterCap?: Date,
): pkijs.Certificate {
  if (!(validity.validityDays > 0)) throw new RangeError('validityDays must be positive');
  const now = validity.now ?? new Date();
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = new asn1js.Integer({ valueHex: serial() });
  certificate.subject.typesAndValues.push(cn(subject));
  if (issuer) certificate.issuer = issuer;
  else certificate.issuer.typesAndValues.push(cn(subject));
  certificate.notBefore.value = new Date(now.getTime() - SkewMs);
  const notAfter = new Date(now.getTime() + validity.validityDays * DayMs);
  certificate.notAfter.value =
    notAfterCap && notAfterCap.getTime() < notAfter.getTime() ? notAfterCap : notAfter;
  certificate.subjectPublicKeyInfo = spki;
  return certificate;
}

/** 16 random bytes, positive (RFC 5280: at most 20 octets, non-negative). */
function serial(): ArrayBuffer {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.buffer;
}

function cn(value: string): pkijs.AttributeTypeAndValue {
  if (!value || value.length > 64)
    throw new RangeError(`a common name of 1–64 characters: ${value}`);
  return new pkijs.AttributeTypeAndValue({
    type: Oid.commonName,
    value: new asn1js.Utf8String({ value }),
  });
}

function extension(id: string, critical: boolean, value: asn1js.BaseBlock, parsed?: unknown) {
  return new pkijs.Extension({
    extnID: id,
    critical,
    extnValue: value.toBER(false),
    ...(parsed !== undefined ? { parsedValue: parsed } : {}),
  });
}

function basicConstraints(ca: boolean): pkijs.Extension {
  const value = new pkijs.BasicConstraints(ca ? { cA: true, pathLenConstraint: 0 } : { cA: false });
  return extension(Oid.basicConstraints, true, value.toSchema(), value);
}

function keyUsage(bits: number): pkijs.Extension {
  // DER: trailing zero bits are unused bits of the last (only) byte.
  let unused = 0;
  while (unused < 7 && (bits & (1 << unused)) === 0) unused++;
  const value = new asn1js.BitString({
    valueHex: new Uint8Array([bits]).buffer,
    unusedBits: unused,
  });
  return extension(Oid.keyUsage, true, value);
}

function extKeyUsage(usage: CertificateUsage): pkijs.Extension {
  const ids = {
    server: [Oid.serverAuth],
    client: [Oid.clientAuth],
    'server-and-client': [Oid.serverAuth, Oid.clientAuth],
  }[usage];
  const value = new pkijs.ExtKeyUsage({ keyPurposes: ids });
  return extension(Oid.extKeyUsage, false, value.toSchema(), value);
}

function subjectKeyIdentifier(id: ArrayBuffer): pkijs.Extension {
  return extension(Oid.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: id }));
}

function authorityKeyIdentifier(id: ArrayBuffer): pkijs.Extension {
  const value = new pkijs.AuthorityKeyIdentifier({
    keyIdentifier: new asn1js.OctetString({ valueHex: id }),
  });
  return extension(Oid.authorityKeyIdentifier, false, value.toSchema(), value);
}

function subjectAltName(dnsNames: string[]): pkijs.Extension {
  for (const name of dnsNames)
    if (!/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(name))
      throw new RangeError(`not a DNS name for a certificate: ${name}`);
  const value = new pkijs.GeneralNames({
    names: dnsNames.map((value) => new pkijs.GeneralName({ type: 2, value })),
  });
  return extension(Oid.subjectAltName, false, value.toSchema(), value);
}

function der(certificate: pkijs.Certificate): ArrayBuffer {
  return certificate.toSchema(true).toBER(false);
}

async function privatePem(keys: CryptoKeyPair): Promise<string> {
  return pem('PRIVATE KEY', await subtle.exportKey('pkcs8', keys.privateKey));
}

function pem(label: string, data: ArrayBuffer): string {
  const base64 = Buffer.from(data).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function unpem(text: string, label: string): ArrayBuffer {
  const match = new RegExp(`-----BEGIN ${label}-----([^-]+)-----END ${label}-----`).exec(text);
  if (!match) throw new TypeError(`no PEM ${label} block`);
  const bytes = Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

function commonNameOf(x: X509Certificate): string {
  return /(?:^|\n)CN=([^\n]*)/.exec(x.subject)?.[1] ?? '';
}
