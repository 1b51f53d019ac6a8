export {
  certificateFacts,
  createCertificateAuthority,
  issueCertificate,
  keyMatches,
  renewAt,
  signedBy,
  uncoveredNames,
  type CertificateAuthorityOptions,
  type CertificateFacts,
  type CertificateUsage,
  type IssueOptions,
  type IssuedCertificate,
} from './certificates.js';
export {
  CA_RENEW_FRACTION,
  keepCertificates,
  type CertificateSet,
  type KeptCertificates,
  type WantedCertificates,
} from './keeper.js';
