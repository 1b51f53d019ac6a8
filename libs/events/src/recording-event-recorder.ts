import {
  recordedEvent,
  type EventRecorder,
  type EventType,
  type RecordedEvent,
} from './event-recorder.js';
import { type Regarding } from './object-reference.js';

/**
 * A fake for tests of code that records Events: keeps every call, in order, exactly as passed
 * (no aggregation, no spam filter, no truncation), so a test asserts on what the code said.
 */
export class RecordingEventRecorder implements EventRecorder {
  /** Every call so far, oldest first. */
  readonly events: RecordedEvent[] = [];

  event(
    regarding: Regarding,
    type: EventType,
    reason: string,
    message: string,
    action?: string,
  ): void {
    this.events.push(recordedEvent(regarding, type, reason, message, action));
  }

  /** `"<type> <reason>"` per call, oldest first — the shape `kubectl describe` lists. */
  summaries(): string[] {
    return this.events.map((e) => `${e.type} ${e.reason}`);
  }

  /** The calls with this reason. */
  withReason(reason: string): RecordedEvent[] {
    return this.events.filter((e) => e.reason === reason);
  }

  clear(): void {
    this.events.length = 0;
  }
}
