/** `metav1.Status`: the body of every error response and of `ERROR` watch events. */
export interface Status {
  apiVersion?: string;
  kind: 'Status';
  status?: 'Success' | 'Failure';
  message?: string;
  /** Machine-readable reason, e.g. `NotFound`, `AlreadyExists`, `Conflict`, `Invalid`, `Expired`. */
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** One reason an object was rejected, e.g. `{ reason: 'FieldValueInvalid', field: 'spec.size' }`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** True for a `Status` object, such as a delete's answer when the object is already gone. */
export function isStatus(value: unknown): value is Status {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, apiVersion } = value as { kind?: unknown; apiVersion?: unknown };
  return kind === 'Status' && (apiVersion === undefined || apiVersion === 'v1');
}
