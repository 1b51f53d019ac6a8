import { type RecordedEvent } from './event-recorder.js';

/** Why an Event was not written at all. */
export type DropCause =
  /** The regarding object used up its token bucket (burst 25, then 1 per 5 min by default). */
  | 'SpamFiltered'
  /** The write queue was full: the API server is slower than the Events arrive. */
  | 'QueueFull'
  /** The recorder was shut down. */
  | 'ShutDown';

/**
 * A write of an Event failed for good (after retries, for transient errors). Handed to the
 * recorder's `onError`, never thrown to the code that recorded the Event. The API error is the
 * `cause`.
 */
export class EventRecordingError extends Error {
  override readonly name = 'EventRecordingError';

  constructor(
    /** `create` for a new Event, `update` for a series count. */
    readonly operation: 'create' | 'update',
    /** Namespace and name of the Event that was written. */
    readonly eventNamespace: string,
    readonly eventName: string,
    /** What was recorded. */
    readonly event: RecordedEvent,
    options: { cause: unknown },
  ) {
    super(
      `steward/events: could not ${operation} Event ${eventNamespace}/${eventName}: ${describe(options.cause)}`,
      options,
    );
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
