/**
 * @steward/conditions — `metav1.Condition` helpers.
 *
 * Contract:
 * - `setCondition` is pure. `lastTransitionTime` moves only when a condition's `status` changes
 *   (or the condition is new); a new reason, message or observedGeneration keeps it.
 * - When nothing differs, the same array comes back with `changed: false`: callers skip the status
 *   write, so a converged object costs zero API writes. `jsonEqual` compares whole statuses the
 *   same way (key order and `undefined` members do not count as differences).
 * - Times are RFC 3339 with seconds precision, as the API server stores `metav1.Time`, so a value
 *   read back compares equal to the one written.
 * - `observedGeneration` is carried through as given: stamp it with the `metadata.generation` the
 *   condition was computed from.
 */
export {
  formatTime,
  type Condition,
  type ConditionStatus,
  type ConditionUpdate,
} from './condition.js';
export {
  findCondition,
  isFalse,
  isTrue,
  removeCondition,
  setCondition,
  setConditions,
} from './conditions.js';
export { jsonEqual } from './status-diff.js';
export {
  ConditionTypes,
  nextStatus,
  type StatusChange,
  type StatusWithConditions,
} from './next-status.js';
