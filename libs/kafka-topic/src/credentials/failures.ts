import { ProviderProfileReasons as R } from '@steward/provider-profile';
import { kafkaErrorDetail, kafkaErrorKind } from '../kafka/errors.js';

/** What a failed connection or call says about a kafka profile's credentials. */
export interface KafkaCheckFailure {
  /** `CredentialsInvalid`, `ProviderUnreachable` or `CredentialsCheckFailed`. */
  reason: string;
  /** Retrying later may succeed by itself. */
  transient: boolean;
  /** kafkajs' words (and the protocol error), for the condition message. */
  detail: string;
}

/**
 * Maps a failed connect or DescribeCluster by `kafkaErrorKind`:
 *
 * | kind | reason | transient |
 * |---|---|---|
 * | authentication (SASL refused), tls (untrusted or unreadable certificate), forbidden (no ACL) | CredentialsInvalid | no |
 * | unreachable (refused or dropped connections, timeouts, retries exhausted) | ProviderUnreachable | yes |
 * | anything else | CredentialsCheckFailed | yes |
 */
export function kafkaCheckFailure(error: unknown): KafkaCheckFailure {
  const kind = kafkaErrorKind(error);
  const detail = kafkaErrorDetail(error);
  switch (kind) {
    case 'authentication':
    case 'tls':
    case 'forbidden':
      return { reason: R.CredentialsInvalid, transient: false, detail };
    case 'unreachable':
      return { reason: R.ProviderUnreachable, transient: true, detail };
    default:
      return { reason: R.CredentialsCheckFailed, transient: true, detail };
  }
}
