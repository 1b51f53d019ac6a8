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
