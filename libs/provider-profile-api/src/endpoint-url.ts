import { withValidations, type CelRule } from '@steward/crd';
import Type from 'typebox';

/** A host: a DNS name or an IPv4 address (labels of letters, digits and hyphens), or `[IPv6]`. */
const HOST = String.raw`([A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?([.][A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*|\\[[0-9A-Fa-f:.]+\\])`;

/**
 * An API endpoint URL as the controllers connect to it: `http(s)://host[:port][/path]`. No user
 * or password in it (credentials come from a Secret, and a URL is shown in status, Events and
 * logs), no query or fragment (the SDKs append their own paths and queries).
 */
export const ENDPOINT_URL_PATTERN = String.raw`^https?://${HOST}(:[0-9]{1,5})?(/[^?#\\s]*)?$`;

/** The CEL rules of an endpoint URL field (`ENDPOINT_URL_PATTERN`, a port 1–65535). */
export const endpointUrlRules: CelRule[] = [
  {
    rule: `self.matches('${ENDPOINT_URL_PATTERN}')`,
    message:
      'must be a URL http(s)://host[:port][/path] such as https://minio.storage:9000, without a user or password (credentials come from the Secret), a query or a fragment',
  },
  {
    rule: "!isURL(self) || url(self).getPort() == '' || (int(url(self).getPort()) >= 1 && int(url(self).getPort()) <= 65535)",
    message: 'the port of the URL must be 1-65535',
  },
];

/** An endpoint URL field (`endpointUrlRules`) of at most `maxLength` characters. */
export const endpointUrl = (description: string, maxLength = 256) =>
  withValidations(Type.String({ maxLength, description }), endpointUrlRules);
