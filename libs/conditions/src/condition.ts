/** `metav1.Condition`, as stored in `status.conditions` of every Steward kind. */
export interface Condition {
  /** CamelCase type, e.g. `Ready`, `Synced`, `Progressing`, `Degraded`. */
  type: string;
  status: ConditionStatus;
  /** CamelCase constant a user can search for, e.g. `InvalidConfig`. */
  reason: string;
  /** Human-readable; says what is wrong and what to do. Never contains secrets. */
  message: string;
  /** RFC 3339, seconds precision. Changes only when `status` changes. */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** What a reconciler states about a condition; the helpers stamp the time. */
export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'>;

/** RFC 3339 with seconds precision, as the API server stores metav1.Time. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
