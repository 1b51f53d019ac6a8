/**
 * @steward/events — Kubernetes Events for controllers, with client-go's `record.EventRecorder`
 * semantics, written as `events.k8s.io/v1` Events.
 *
 * Contract of {@link KubeEventRecorder}:
 * - `event(regarding, type, reason, message, action?)` returns at once and never throws, never
 *   awaits the API server and never blocks a reconcile. Writes go through a bounded queue worked
 *   by one writer; what cannot be written is reported to `onError` (write failed for good, after
 *   up to `maxRetries` retries of connection errors, 5xx and 429) or `onDrop` (not written at
 *   all: spam filter, full queue, shut down). Delivery is best effort, as in client-go.
 * - An Event is `<regarding name>.<16 random hex>` in the regarding object's namespace
 *   (`default` for cluster-scoped objects), with `regarding` = apiVersion, kind, namespace, name,
 *   uid, resourceVersion; `reportingController` = the controller's qualified name,
 *   `reportingInstance` = this process (default: host name, i.e. the pod name); `eventTime` and
 *   `series.lastObservedTime` are MicroTime (`2026-01-01T00:00:00.123000Z`). `action` defaults to
 *   `Reconcile` because the API requires one.
 * - **Aggregation**: a repeat of the same (regarding object — uid, else kind/namespace/name —,
 *   type, reason, message, action) less than `seriesWindowMs` (6 min) after the previous one is
 *   folded into the existing Event's `series` (`count` = every observation so far,
 *   `lastObservedTime`): repeats before the create is sent ride on the create; later ones cost at
 *   most one merge patch per `seriesUpdateIntervalMs` (10 s) per Event, and `flush()` writes them
 *   now. A series whose Event has vanished (event TTL) is created again under a new name.
 * - **Spam filter**: each new Event takes a token from its regarding object's bucket (burst 25,
 *   one more every 5 min, as client-go's `EventSourceObjectSpamFilter`); with none left the Event
 *   is dropped (`onDrop(…, 'SpamFiltered')`). Repeats folded into a series cost no token.
 * - `message` is cut to 1024 bytes of UTF-8 (the API server's limit; 1024 characters for ASCII),
 *   `reason` and `action` to 128 characters.
 * - `shutdown()` stops accepting Events and writes what is pending; `flush()` and `shutdown()`
 *   never reject.
 *
 * **Never put secrets in Events.** Events are readable by anyone who may list Events in the
 * namespace and are kept for an hour: messages must not contain passwords, tokens, keys or
 * connection strings with credentials. The recorder does not (cannot) redact them.
 *
 * Assumptions: one recorder per controller process, given a `KubeClient` (ideally its own, so
 * Event writes do not use up the reconcilers' rate limit) allowed to `create` and `patch`
 * `events.k8s.io` `events` in the namespaces of the objects it reports on.
 *
 * For tests of other libraries: {@link noopEventRecorder}, {@link RecordingEventRecorder}, or any
 * object literal `{ event() {…} }` ({@link eventRecorderFunc} adapts a function).
 */
export { EventRecordingError, type DropCause } from './errors.js';
export { eventName } from './event-name.js';
export {
  eventRecorderFunc,
  noopEventRecorder,
  type EventRecorder,
  type EventType,
  type RecordedEvent,
} from './event-recorder.js';
export {
  KubeEventRecorder,
  type EventSink,
  type KubeEventRecorderOptions,
} from './kube-event-recorder.js';
export { formatMicroTime } from './micro-time.js';
export { maxNoteBytes, truncateNote } from './note.js';
export { referenceTo, type ObjectReference, type Regarding } from './object-reference.js';
export { RecordingEventRecorder } from './recording-event-recorder.js';
export { type SpamFilterOptions } from './spam-filter.js';
