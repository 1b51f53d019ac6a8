import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM file paths of one certificate and its key. */
export interface CertificatePair {
  certFile: string;
  keyFile: string;
}

/** A throwaway certificate authority minted with openssl for one control plane. */
export interface CertificateAuthority extends CertificatePair {
  dir: string;
}

const validityDays = '7';

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args, { timeout: 60_000 });
  } catch (error) {
    throw new Error(`steward: openssl ${args[0]} failed (is openssl installed?)`, { cause: error });
  }
}

/** Mints a self-signed CA into `dir` (ca.crt, ca.key). */
export async function mintCertificateAuthority(dir: string): Promise<CertificateAuthority> {
  const certFile = join(dir, 'ca.crt');
  const keyFile = join(dir, 'ca.key');
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    validityDays,
    '-subj',
    '/CN=steward-test-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return { dir, certFile, keyFile };
}

export interface LeafOptions {
  /** File name stem: `<name>.crt` and `<name>.key`. */
  name: string;
  commonName: string;
  /** X.509 organisations; Kubernetes reads them as the client's groups. */
  organizations?: string[];
  /** Subject alternative names, e.g. `IP:127.0.0.1`, `DNS:localhost`; makes it a serving cert. */
  subjectAltNames?: string[];
}

/** Mints a certificate signed by `ca`: a serving cert when it has SANs, a client cert otherwise. */
export async function mintCertificate(
  ca: CertificateAuthority,
  options: LeafOptions,
): Promise<CertificatePair> {
  const certFile = join(ca.dir, `${options.name}.crt`);
  const keyFile = join(ca.dir, `${options.name}.key`);
  const csrFile = join(ca.dir, `${options.name}.csr`);
  const extFile = join(ca.dir, `${options.name}.ext`);
  const subject =
    (options.organizations ?? []).map((o) => `/O=${escapeRdn(o)}`).join('') +
    `/CN=${escapeRdn(options.commonName)}`;
  const serving = (options.subjectAltNames ?? []).length > 0;
  await writeFile(
    extFile,
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      `extendedKeyUsage=${serving ? 'serverAuth' : 'clientAuth'}`,
      ...(serving ? [`subjectAltName=${options.subjectAltNames!.join(',')}`] : []),
    ].join('\n'),
  );
  await openssl([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    csrFile,
    '-subj',
    subject,
  ]);
  await openssl([
    'x509',
    '-req',
    '-in',
    csrFile,
    '-CA',
    ca.certFile,
    '-CAkey',
    ca.keyFile,
    '-CAcreateserial',
    '-out',
    certFile,
    '-days',
    validityDays,
    '-extfile',
    extFile,
  ]);
  return { certFile, keyFile };
}

/** Mints the RSA key pair the API server signs and verifies service-account tokens with. */
export async function mintServiceAccountKey(dir: string): Promise<string> {
  const keyFile = join(dir, 'service-account.key');
  await openssl([
    'genpkey',
    '-algorithm',
    'RSA',
    '-pkeyopt',
    'rsa_keygen_bits:2048',
    '-out',
    keyFile,
  ]);
  return keyFile;
}

export async function readPem(file: string): Promise<string> {
  return readFile(file, 'utf8');
}

function escapeRdn(value: string): string {
  return value.replace(/[/\\=+,]/g, (c) => `\\${c}`);
}
