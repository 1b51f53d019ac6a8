import { describe, expect, it } from 'vitest';
import { eventRecorderFunc, noopEventRecorder, type RecordedEvent } from './event-recorder.js';
import { RecordingEventRecorder } from './recording-event-recorder.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: '7', labels: { a: 'b' } },
};

describe('RecordingEventRecorder', () => {
  it('keeps every call in order, exactly as passed, with a reference to the object', () => {
    const recorder = new RecordingEventRecorder();
    recorder.event(pod, 'Warning', 'CreateFailed', 'boom');
    recorder.event(pod, 'Warning', 'CreateFailed', 'boom');
    recorder.event(pod, 'Normal', 'Created', 'ok', 'Create');
    expect(recorder.events).toEqual([
      {
        regarding: {
          apiVersion: 'v1',
          kind: 'Pod',
          namespace: 'ns',
          name: 'p',
          uid: 'u1',
          resourceVersion: '7',
        },
        type: 'Warning',
        reason: 'CreateFailed',
        message: 'boom',
      },
      expect.objectContaining({ reason: 'CreateFailed' }),
      expect.objectContaining({ type: 'Normal', reason: 'Created', action: 'Create' }),
    ]);
    expect(recorder.summaries()).toEqual([
      'Warning CreateFailed',
      'Warning CreateFailed',
      'Normal Created',
    ]);
    expect(recorder.withReason('Created')).toHaveLength(1);
    recorder.clear();
    expect(recorder.events).toEqual([]);
  });
});

describe('eventRecorderFunc and noopEventRecorder', () => {
  it('adapts a function, and the no-op records nothing', () => {
    const seen: RecordedEvent[] = [];
    const recorder = eventRecorderFunc((e) => seen.push(e));
    recorder.event({ apiVersion: 'v1', kind: 'Node', name: 'n1' }, 'Normal', 'Seen', 'hi');
    expect(seen).toEqual([
      {
        regarding: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
        type: 'Normal',
        reason: 'Seen',
        message: 'hi',
      },
    ]);
    expect(() => noopEventRecorder.event(pod, 'Normal', 'X', 'y')).not.toThrow();
  });
});
