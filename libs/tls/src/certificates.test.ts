import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  certificateFacts,
  createCertificateAuthority,
  issueCertificate,
  keyMatches,
  renewAt,
  signedBy,
  uncoveredNames,
  type IssuedCertificate,
} from './certificates.js';

const now = new Date('2026-12-07T12:00:00Z');
const names = ['orders-rw', 'orders-rw.shop', 'orders-rw.shop.svc', '*.orders.shop.svc'];
let ca: IssuedCertificate;
let server: IssuedCertificate;
let client: IssuedCertificate;

beforeAll(async () => {
  ca = await createCertificateAuthority({ commonName: 'orders CA', validityDays: 3650, now });
  server = await issueCertificate({
    ca,
    commonName: 'orders',
    dnsNames: names,
    usage: 'server',
    validityDays: 90,
    now,
  });
  client = await issueCertificate({
    ca,
    commonName: 'steward_replication',
    usage: 'client',
    validityDays: 90,
    now,
  });
});

describe('a CA per cluster', () => {
  it('is a self-signed CA certificate (CA:TRUE, pathlen 0, keyCertSign) with its own P-256 key', () => {
    const x = new X509Certificate(ca.certificate);
    expect(x.ca).toBe(true);
    expect(x.subject).toBe('CN=orders CA');
    expect(x.issuer).toBe('CN=orders CA');
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.publicKey.asymmetricKeyDetails).toMatchObject({ namedCurve: 'prime256v1' });
    expect(keyMatches(ca.certificate, ca.privateKey)).toBe(true);
    expect(ca.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const facts = certificateFacts(ca.certificate);
    expect(facts.isCA).toBe(true);
    // A minute before `now` (clock skew) to 3650 days after it.
    expect(facts.notBefore.getTime()).toBe(now.getTime() - 60_000);
    expect(facts.notAfter.getTime()).toBe(now.getTime() + 3650 * 86_400_000);
  });

  it('each CA is its own: another cluster’s CA did not sign this cluster’s certificates', async () => {
    const other = await createCertificateAuthority({ commonName: 'orders CA', validityDays: 10 });
    expect(signedBy(server.certificate, ca.certificate)).toBe(true);
    expect(signedBy(server.certificate, other.certificate)).toBe(false);
    expect(certificateFacts(other.certificate).serialNumber).not.toBe(
      certificateFacts(ca.certificate).serialNumber,
    );
  });
});

describe('server and client certificates', () => {
  it('a server certificate: signed by the CA, a leaf, the names the Services have and no other', () => {
    const facts = certificateFacts(server.certificate);
    expect(facts).toMatchObject({ commonName: 'orders', issuer: 'CN=orders CA', isCA: false });
    expect(facts.dnsNames).toEqual(names);
    expect(signedBy(server.certificate, ca.certificate)).toBe(true);
    expect(keyMatches(server.certificate, server.privateKey)).toBe(true);
    expect(keyMatches(server.certificate, client.privateKey)).toBe(false);
    expect(
      uncoveredNames(server.certificate, ['orders-rw.shop.svc', 'orders-0.orders.shop.svc']),
    ).toEqual([]);
    expect(uncoveredNames(server.certificate, ['orders-ro', 'orders-rw.other.svc'])).toEqual([
      'orders-ro',
      'orders-rw.other.svc',
    ]);
    // The key usages OpenSSL checks: serverAuth only.
    expect(new X509Certificate(server.certificate).keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('a client certificate: clientAuth, its common name the role it authenticates as', () => {
    const x = new X509Certificate(client.certificate);
    expect(x.subject).toBe('CN=steward_replication');
    expect(x.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(signedBy(client.certificate, ca.certificate)).toBe(true);
  });

  it('never outlives its CA, and is renewed at two thirds of its life', async () => {
    const shortCa = await createCertificateAuthority({
      commonName: 'short',
      validityDays: 30,
      now,
    });
    const leaf = await issueCertificate({
      ca: shortCa,
      commonName: 'x',
      usage: 'server',
      validityDays: 90,
      now,
    });
    expect(certificateFacts(leaf.certificate).notAfter).toEqual(
      certificateFacts(shortCa.certificate).notAfter,
    );
    const facts = certificateFacts(server.certificate);
    const at = renewAt(facts);
    const life = facts.notAfter.getTime() - facts.notBefore.getTime();
    expect(at.getTime() - facts.notBefore.getTime()).toBe(Math.round((life * 2) / 3));
    // 90 days: renewed 30 days (and the skew minute's third) before expiry.
    expect(Math.round((facts.notAfter.getTime() - at.getTime()) / 86_400_000)).toBe(30);
  });

  it('refuses what would make a bad certificate: a leaf as issuer, a name that is no DNS name, no validity', async () => {
    await expect(
      issueCertificate({ ca: server, commonName: 'x', usage: 'server', validityDays: 1 }),
    ).rejects.toThrow(/not a CA/);
    await expect(
      issueCertificate({
        ca,
        commonName: 'x',
        dnsNames: ['orders rw'],
        usage: 'server',
        validityDays: 1,
      }),
    ).rejects.toThrow(/not a DNS name/);
    await expect(createCertificateAuthority({ commonName: 'x', validityDays: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe('with OpenSSL (Node’s TLS stack and the openssl command)', () => {
  const handshake = (
    options: tls.ConnectionOptions,
    serverOptions: tls.TlsOptions = {},
  ): Promise<{ authorized: boolean; error?: string; peer?: string }> =>
    new Promise((resolve, reject) => {
      const srv = tls.createServer(
        { key: server.privateKey, cert: server.certificate, ...serverOptions },
        (socket) => {
          resolve({
            authorized: socket.authorized,
            ...(socket.authorizationError ? { error: String(socket.authorizationError) } : {}),
            peer: String(socket.getPeerCertificate().subject?.CN),
          });
          socket.end();
          srv.close();
        },
      );
      srv.on('tlsClientError', (e) => {
        resolve({ authorized: false, error: e.message });
        srv.close();
      });
      srv.listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as AddressInfo;
        const socket = tls.connect({ host: '127.0.0.1', port, ...options });
        socket.on('error', (e) => {
          resolve({ authorized: false, error: (e as NodeJS.ErrnoException).code ?? e.message });
          srv.close();
        });
        socket.on('secureConnect', () => socket.resume());
      });
      srv.on('error', reject);
    });

  it('a client that verifies the host with the published CA connects', async () => {
    const r = await handshake({ ca: ca.certificate, servername: 'orders-rw.shop.svc' });
    expect(r.error).toBeUndefined();
  });

  it('a client with another CA, or another host name, is refused', async () => {
    const other = await createCertificateAuthority({ commonName: 'other', validityDays: 1 });
    expect(
      (await handshake({ ca: other.certificate, servername: 'orders-rw.shop.svc' })).error,
    ).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect((await handshake({ ca: ca.certificate, servername: 'orders-ro.shop.svc' })).error).toBe(
      'ERR_TLS_CERT_ALTNAME_INVALID',
    );
  });

  it('a server that requires client certificates admits the replication client and no one else', async () => {
    const verify = { requestCert: true, rejectUnauthorized: true, ca: ca.certificate };
    const admitted = await handshake(
      {
        ca: ca.certificate,
        servername: 'orders-rw.shop.svc',
        key: client.privateKey,
        cert: client.certificate,
      },
      verify,
    );
    expect(admitted).toMatchObject({ authorized: true, peer: 'steward_replication' });
    const anonymous = await handshake(
      { ca: ca.certificate, servername: 'orders-rw.shop.svc' },
      verify,
    );
    expect(anonymous.authorized).toBe(false);
  });

  describe('openssl verify', () => {
    let dir = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'steward-tls-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('accepts the chain for the server and client purposes', () => {
      writeFileSync(join(dir, 'ca.crt'), ca.certificate);
      writeFileSync(join(dir, 'server.crt'), server.certificate);
      writeFileSync(join(dir, 'client.crt'), client.certificate);
      const verify = (file: string, purpose: string) =>
        execFileSync(
          'openssl',
          ['verify', '-CAfile', join(dir, 'ca.crt'), '-purpose', purpose, join(dir, file)],
          { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
        ).trim();
      expect(verify('server.crt', 'sslserver')).toMatch(/: OK$/);
      expect(verify('client.crt', 'sslclient')).toMatch(/: OK$/);
      expect(() => verify('client.crt', 'sslserver')).toThrow();
    });
  });
});
