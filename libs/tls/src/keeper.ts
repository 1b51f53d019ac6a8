/**
 * The certificates one cluster is to have, kept (docs/design/tls.md): given what its Secrets hold
 * now, what to issue this reconcile — nothing when everything is valid, covers the names and is
 * not due; otherwise only what is missing, broken, mis-signed, short of a name or due. The caller
 * reads the current ones from its Secrets and writes the result back (a converged cluster: the
 * same PEM back, no write).
 *
 * The CA is renewed at 90 % of its life; its successor then signs every leaf, and the trust
 * bundle (`ca.crt`) holds both CAs until the old one expires, so a client that still has only the
 * old CA keeps verifying until it reloads.
 */
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

export interface CertificateSet {
  ca?: IssuedCertificate;
  /** PEM certificates clients trust: the CA, and a CA it replaced until that one expires. */
  trust?: string;
  server?: IssuedCertificate;
  /** Client certificates by common name (e.g. the replication role). */
  clients?: Record<string, IssuedCertificate>;
}

export interface WantedCertificates {
  caCommonName: string;
  serverCommonName: string;
  /** Every host name clients and instances connect by. */
  serverNames: string[];
  /** Client certificates' common names. */
  clients?: string[];
  /** Default 3650. */
  caValidityDays?: number;
  /** Default 90. */
  leafValidityDays?: number;
}

export interface KeptCertificates {
  set: Required<Pick<CertificateSet, 'ca' | 'trust' | 'server'>> & {
    clients: Record<string, IssuedCertificate>;
  };
  /** What was issued this time and why (for an Event); empty: nothing changed. */
  issued: string[];
}

/** The share of its life after which the CA is replaced. */
export const CA_RENEW_FRACTION = 0.9;

/** The certificates to keep: `current` where still good, new ones where not. */
export async function keepCertificates(
  current: CertificateSet,
  want: WantedCertificates,
  now: Date,
): Promise<KeptCertificates> {
  const issued: string[] = [];
  const caDays = want.caValidityDays ?? 3650;
  const leafDays = want.leafValidityDays ?? 90;

  let ca = current.ca;
  const caProblem = ca ? caProblemOf(ca, now) : 'missing';
  let retired: string | undefined;
  if (caProblem) {
    if (ca && caProblem === 'due') retired = ca.certificate;
    ca = await createCertificateAuthority({
      commonName: want.caCommonName,
      validityDays: caDays,
      now,
    });
    issued.push(`CA ${want.caCommonName} (${caProblem})`);
  }
  // A CA replaced because it was due stays trusted until it expires; one replaced because it was
  // broken (unreadable, not a CA, a key that does not match) is trusted no more, nor what came
  // with it.
  const trust = trustBundle(
    ca!.certificate,
    !caProblem || retired ? current.trust : undefined,
    retired,
    now,
  );

  const leaf = async (
    existing: IssuedCertificate | undefined,
    what: string,
    commonName: string,
    make: () => Promise<IssuedCertificate>,
    names: string[] = [],
  ) => {
    const problem = existing ? leafProblemOf(existing, ca!, names, now) : 'missing';
    if (!problem) return existing!;
    issued.push(`${what} ${commonName} (${problem})`);
    return make();
  };

  const server = await leaf(
    current.server,
    'server certificate',
    want.serverCommonName,
    () =>
      issueCertificate({
        ca: ca!,
        commonName: want.serverCommonName,
        dnsNames: want.serverNames,
        usage: 'server',
        validityDays: leafDays,
        now,
      }),
    want.serverNames,
  );
  const clients: Record<string, IssuedCertificate> = {};
  for (const name of want.clients ?? [])
    clients[name] = await leaf(current.clients?.[name], 'client certificate', name, () =>
      issueCertificate({
        ca: ca!,
        commonName: name,
        usage: 'client',
        validityDays: leafDays,
        now,
      }),
    );
  return { set: { ca: ca!, trust, server, clients }, issued };
}

function caProblemOf(ca: IssuedCertificate, now: Date): string | undefined {
  let facts;
  try {
    facts = certificateFacts(ca.certificate);
    if (!facts.isCA) return 'not a CA';
    if (!keyMatches(ca.certificate, ca.privateKey)) return 'key does not match';
  } catch {
    return 'unreadable';
  }
  if (now.getTime() >= facts.notAfter.getTime()) return 'expired';
  if (now.getTime() >= renewAt(facts, CA_RENEW_FRACTION).getTime()) return 'due';
  return undefined;
}

function leafProblemOf(
  leaf: IssuedCertificate,
  ca: IssuedCertificate,
  names: string[],
  now: Date,
): string | undefined {
  let facts;
  try {
    facts = certificateFacts(leaf.certificate);
    if (!keyMatches(leaf.certificate, leaf.privateKey)) return 'key does not match';
    if (!signedBy(leaf.certificate, ca.certificate)) return 'not signed by the current CA';
  } catch {
    return 'unreadable';
  }
  const missing = uncoveredNames(leaf.certificate, names);
  if (missing.length) return `names not covered: ${missing.join(', ')}`;
  if (now.getTime() >= facts.notAfter.getTime()) return 'expired';
  if (now.getTime() >= renewAt(facts).getTime()) return `due since ${renewAt(facts).toISOString()}`;
  return undefined;
}

/** The CA first, then each earlier CA of the bundle (or the one retired now) not yet expired. */
function trustBundle(
  ca: string,
  previous: string | undefined,
  retired: string | undefined,
  now: Date,
): string {
  const blocks = [ca, ...(retired ? [retired] : []), ...pemBlocks(previous ?? '')];
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const block of blocks) {
    let facts;
    try {
      facts = certificateFacts(block);
    } catch {
      continue;
    }
    if (seen.has(facts.fingerprint256) || now.getTime() >= facts.notAfter.getTime()) continue;
    seen.add(facts.fingerprint256);
    kept.push(block.endsWith('\n') ? block : `${block}\n`);
  }
  return kept.join('');
}

function pemBlocks(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n?/g) ?? [];
}
