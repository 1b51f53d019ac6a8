import { describe, expect, it } from 'vitest';
import {
  certificateFacts,
  createCertificateAuthority,
  issueCertificate,
  signedBy,
} from './certificates.js';
import { keepCertificates, type WantedCertificates } from './keeper.js';

const DayMs = 86_400_000;
const t0 = new Date('2026-12-07T12:00:00Z');
const at = (days: number) => new Date(t0.getTime() + days * DayMs);
const want: WantedCertificates = {
  caCommonName: 'orders CA',
  serverCommonName: 'orders',
  serverNames: ['orders-rw.shop.svc', 'orders-ro.shop.svc'],
  clients: ['steward_replication'],
};
const fingerprints = (bundle: string) =>
  (bundle.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n/g) ?? []).map(
    (b) => certificateFacts(b).fingerprint256,
  );

describe('keepCertificates', () => {
  it('issues everything for a new cluster: a CA, the server certificate for every name, each client', async () => {
    const { set, issued } = await keepCertificates({}, want, t0);
    expect(issued).toEqual([
      'CA orders CA (missing)',
      'server certificate orders (missing)',
      'client certificate steward_replication (missing)',
    ]);
    expect(certificateFacts(set.server.certificate).dnsNames).toEqual(want.serverNames);
    expect(signedBy(set.server.certificate, set.ca.certificate)).toBe(true);
    expect(signedBy(set.clients['steward_replication']!.certificate, set.ca.certificate)).toBe(
      true,
    );
    expect(set.trust).toBe(set.ca.certificate);
  });

  it('changes nothing while everything is valid, covers the names and is not due (a converged cluster writes nothing)', async () => {
    const first = await keepCertificates({}, want, t0);
    const again = await keepCertificates(first.set, want, at(59));
    expect(again.issued).toEqual([]);
    expect(again.set).toEqual(first.set);
  });

  it('renews a leaf at two thirds of its life, and one short of a name at once — with the same CA', async () => {
    const first = await keepCertificates({}, want, t0);
    const due = await keepCertificates(first.set, want, at(61));
    // Issued a minute before t0 (skew) for 90 days + that minute: due 60 days − 20 s after t0.
    expect(due.issued).toEqual([
      'server certificate orders (due since 2027-02-05T11:59:40.000Z)',
      'client certificate steward_replication (due since 2027-02-05T11:59:40.000Z)',
    ]);
    expect(due.set.ca).toEqual(first.set.ca);
    expect(due.set.server.certificate).not.toBe(first.set.server.certificate);

    const more = { ...want, serverNames: [...want.serverNames, 'orders-r.shop.svc'] };
    const renamed = await keepCertificates(first.set, more, at(1));
    expect(renamed.issued).toEqual([
      'server certificate orders (names not covered: orders-r.shop.svc)',
    ]);
    expect(certificateFacts(renamed.set.server.certificate).dnsNames).toContain(
      'orders-r.shop.svc',
    );
  });

  it('replaces a CA at 90 % of its life: its successor signs every leaf, and clients that trust only the old CA keep verifying until it expires', async () => {
    const short = { ...want, caValidityDays: 100 };
    const first = await keepCertificates({}, short, t0);
    const renewed = await keepCertificates(first.set, short, at(91));
    expect(renewed.issued[0]).toBe('CA orders CA (due)');
    expect(renewed.set.ca.certificate).not.toBe(first.set.ca.certificate);
    expect(signedBy(renewed.set.server.certificate, renewed.set.ca.certificate)).toBe(true);
    const newFp = certificateFacts(renewed.set.ca.certificate).fingerprint256;
    const oldFp = certificateFacts(first.set.ca.certificate).fingerprint256;
    expect(fingerprints(renewed.set.trust)).toEqual([newFp, oldFp]);
    // Still both a day later; the old one gone once it expired.
    const later = await keepCertificates(renewed.set, short, at(92));
    expect(later.issued).toEqual([]);
    expect(fingerprints(later.set.trust)).toEqual([newFp, oldFp]);
    const expired = await keepCertificates(renewed.set, short, at(101));
    expect(fingerprints(expired.set.trust)).toEqual([newFp]);
  });

  it('a broken CA (a key that is not its own) is replaced and trusted no more; every leaf is re-signed', async () => {
    const first = await keepCertificates({}, want, t0);
    const stranger = await createCertificateAuthority({ commonName: 'x', validityDays: 10 });
    const broken = { ...first.set, ca: { ...first.set.ca, privateKey: stranger.privateKey } };
    const kept = await keepCertificates(broken, want, at(1));
    expect(kept.issued[0]).toBe('CA orders CA (key does not match)');
    expect(kept.issued).toContain('server certificate orders (not signed by the current CA)');
    expect(fingerprints(kept.set.trust)).toEqual([
      certificateFacts(kept.set.ca.certificate).fingerprint256,
    ]);
  });

  it('a leaf signed by another CA, or garbage in the Secret, is reissued', async () => {
    const first = await keepCertificates({}, want, t0);
    const other = await createCertificateAuthority({ commonName: 'other', validityDays: 10 });
    const foreign = await issueCertificate({
      ca: other,
      commonName: 'orders',
      dnsNames: want.serverNames,
      usage: 'server',
      validityDays: 90,
      now: t0,
    });
    const kept = await keepCertificates(
      {
        ...first.set,
        server: foreign,
        clients: { steward_replication: { certificate: 'garbage', privateKey: 'garbage' } },
      },
      want,
      at(1),
    );
    expect(kept.issued).toEqual([
      'server certificate orders (not signed by the current CA)',
      'client certificate steward_replication (unreadable)',
    ]);
  });
});
