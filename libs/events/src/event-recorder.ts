import { referenceTo, type ObjectReference, type Regarding } from './object-reference.js';

/** `Normal` for things going as planned, `Warning` for what a user may need to act on. */
export type EventType = 'Normal' | 'Warning';

/** One call to {@link EventRecorder.event}, as fakes record it and drop hooks report it. */
export interface RecordedEvent {
  regarding: ObjectReference;
  type: EventType;
  /** CamelCase constant, e.g. `CreateFailed`: what happened, machine-readable. */
  reason: string;
  /** Human-readable details, as the caller passed them. */
  message: string;
  /** What was being done, e.g. `Reconcile`, when the caller said. */
  action?: string;
}

/**
 * Records Events about objects — client-go's `record.EventRecorder`, for `events.k8s.io/v1`.
 *
 * Small on purpose so that a test's fake is an object literal; see {@link eventRecorderFunc},
 * {@link noopEventRecorder} and `RecordingEventRecorder`.
 */
export interface EventRecorder {
  /**
   * Records that `reason` happened to `regarding`. Called from reconcilers on any path, success or
   * failure; returns at once and never throws — delivery is best effort and happens later, if at
   * all. Idempotent in effect: repeating a call is cheap (it becomes a count on an existing Event).
   *
   * `message` is shown to every user who can read Events in the namespace: it must never contain
   * secrets, passwords, tokens or connection strings with credentials.
   */
  event(
    regarding: Regarding,
    type: EventType,
    reason: string,
    message: string,
    action?: string,
  ): void;
}

/** An `EventRecorder` that hands every call, as a {@link RecordedEvent}, to `record`. */
export function eventRecorderFunc(record: (event: RecordedEvent) => void): EventRecorder {
  return {
    event(regarding, type, reason, message, action) {
      record(recordedEvent(regarding, type, reason, message, action));
    },
  };
}

/** Records nothing: for code paths and tests where Events do not matter. */
export const noopEventRecorder: EventRecorder = Object.freeze({
  event: () => undefined,
});

export function recordedEvent(
  regarding: Regarding,
  type: EventType,
  reason: string,
  message: string,
  action: string | undefined,
): RecordedEvent {
  const event: RecordedEvent = { regarding: referenceTo(regarding), type, reason, message };
  if (action !== undefined) event.action = action;
  return event;
}
