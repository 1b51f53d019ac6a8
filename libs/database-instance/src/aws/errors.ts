import { TerminalError } from '@steward/controller';

/** Reasons of the terminal errors this provider raises (condition reasons, CamelCase constants). */
export const RdsReasons = {
  AlreadyExists: 'AlreadyExists',
  InvalidParameter: 'InvalidParameter',
  Unsupported: 'Unsupported',
  QuotaExceeded: 'QuotaExceeded',
  Forbidden: 'Forbidden',
} as const;

/** What an RDS error means to the provider, decided by the SDK error's `name` (its AWS code) alone. */
export type RdsErrorKind =
  | 'not-found'
  | 'already-exists'
  | 'snapshot-already-exists'
  | 'invalid-parameter'
  | 'quota'
  | 'forbidden'
  /** Throttling, 5xx, a busy instance, network errors, anything unknown: retried with backoff. */
  | 'retryable';

/**
 * The mapping, by error `name` (the AWS error code; the SDK sets `name` to it whether or not it
 * models a class for it, so nothing here depends on error classes):
 *
 * | names | kind | provider does |
 * |---|---|---|
 * | DBInstanceNotFound(Fault) | not-found | observe: exists false; delete: done |
 * | DBInstanceAlreadyExists(Fault) | already-exists | create: success if ours, else `AlreadyExists` |
 * | DBSnapshotAlreadyExists(Fault) | snapshot-already-exists | delete: `AlreadyExists` |
 * | InvalidParameterValue, InvalidParameterCombination, MissingParameter, InvalidParameter, ValidationError, DBSubnetGroupNotFoundFault, DBParameterGroupNotFound, OptionGroupNotFoundFault, DBSecurityGroupNotFound, StorageTypeNotSupported(Fault), InvalidVPCNetworkStateFault, InvalidSubnet | invalid-parameter | `InvalidParameter` (terminal) |
 * | InstanceQuotaExceeded(Fault), StorageQuotaExceeded(Fault) | quota | `QuotaExceeded` (terminal) |
 * | AccessDenied, AccessDeniedException, UnauthorizedOperation, InvalidClientTokenId, UnrecognizedClientException, SignatureDoesNotMatch | forbidden | `Forbidden` (terminal) |
 * | anything else (Throttling, RequestLimitExceeded, InvalidDBInstanceState(Fault), InsufficientDBInstanceCapacity, 5xx, network) | retryable | rethrown, retried with backoff |
 */
const kinds: Record<string, RdsErrorKind> = {};
const assign = (kind: RdsErrorKind, names: string[]) => {
  for (const name of names) kinds[name] = kind;
};
assign('not-found', ['DBInstanceNotFound', 'DBInstanceNotFoundFault']);
assign('already-exists', ['DBInstanceAlreadyExists', 'DBInstanceAlreadyExistsFault']);
assign('snapshot-already-exists', ['DBSnapshotAlreadyExists', 'DBSnapshotAlreadyExistsFault']);
assign('invalid-parameter', [
  'InvalidParameterValue',
  'InvalidParameterCombination',
  'InvalidParameter',
  'MissingParameter',
  'ValidationError',
  'DBSubnetGroupNotFoundFault',
  'DBParameterGroupNotFound',
  'DBParameterGroupNotFoundFault',
  'OptionGroupNotFoundFault',
  'DBSecurityGroupNotFound',
  'DBSecurityGroupNotFoundFault',
  'StorageTypeNotSupported',
  'StorageTypeNotSupportedFault',
  'InvalidVPCNetworkStateFault',
  'InvalidSubnet',
]);
assign('quota', [
  'InstanceQuotaExceeded',
  'InstanceQuotaExceededFault',
  'StorageQuotaExceeded',
  'StorageQuotaExceededFault',
]);
assign('forbidden', [
  'AccessDenied',
  'AccessDeniedException',
  'UnauthorizedOperation',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'SignatureDoesNotMatch',
]);

export function rdsErrorKind(error: unknown): RdsErrorKind {
  const name = (error as { name?: unknown } | undefined)?.name;
  return (typeof name === 'string' && kinds[name]) || 'retryable';
}

/** An RDS call failed with a known, non-terminal meaning the caller handles (not found, exists). */
export class RdsError extends Error {
  override readonly name = 'RdsError';
  constructor(
    readonly kind: RdsErrorKind,
    readonly operation: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Runs one RDS call and maps its failure by error name (see the table above):
 * `invalid-parameter`, `quota` and `forbidden` become a `TerminalError` carrying AWS's message;
 * `not-found`, `already-exists`, `snapshot-already-exists` an `RdsError` the caller decides on;
 * everything else is rethrown as an `Error` naming the call and AWS's error code (retried).
 * `secrets` are blanked out of every message.
 */
export async function rdsCall<R>(
  operation: string,
  call: () => Promise<R>,
  secrets: readonly string[] = [],
): Promise<R> {
  try {
    return await call();
  } catch (error) {
    const kind = rdsErrorKind(error);
    const raw = error instanceof Error ? error.message : String(error);
    const message = redact(`${operation}: ${raw}`, secrets);
    switch (kind) {
      case 'invalid-parameter':
        throw new TerminalError(RdsReasons.InvalidParameter, `RDS refused ${message}`);
      case 'quota':
        throw new TerminalError(RdsReasons.QuotaExceeded, `RDS refused ${message}`);
      case 'forbidden':
        throw new TerminalError(
          RdsReasons.Forbidden,
          `RDS refused ${message}; check the ProviderProfile's credentials and their IAM policy`,
        );
      case 'retryable': {
        // Retried with backoff; the message (Synced's) names the call and AWS's error code.
        const code = error instanceof Error && error.name !== 'Error' ? ` (${error.name})` : '';
        // The original goes along as the cause unless a secret was in it (causes reach logs).
        const leaks = secrets.some((s) => s && raw.includes(s));
        throw new Error(`RDS ${message}${code}`, leaks ? undefined : { cause: error });
      }
      default:
        throw new RdsError(kind, operation, message);
    }
  }
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}
