import { type ReadableStream, type ReadableStreamReadResult } from 'node:stream/web';
import { ConnectionError, errorFromStatus, type RequestTarget } from './errors.js';
import { type KubeObject } from './kube-object.js';
import { isStatus } from './status.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/**
 * One change. A `BOOKMARK`'s object carries only `apiVersion`, `kind` and
 * `metadata.resourceVersion` (plus annotations): a point to resume from, not a real object.
 */
export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}

export interface WatchOptions {
  /** Namespace to watch; omitted watches all namespaces (or a cluster-scoped kind). */
  namespace?: string;
  /** Start after this version; omitted or `"0"` starts with synthetic ADDED events for the current state. */
  resourceVersion?: string;
  /** The server ends the stream after this long (it adds jitter); the iterator then just ends. */
  timeoutSeconds?: number;
  /** Ask the server for BOOKMARK events carrying the latest resourceVersion. */
  allowWatchBookmarks?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  /** Aborting ends the iteration promptly (no error is thrown). */
  signal?: AbortSignal;
}

interface RawEvent {
  type?: string;
  object?: unknown;
}

const eventTypes = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/**
 * Reads a watch response body, newline-delimited JSON, as events. Ends when the server closes the
 * stream or `signal` aborts. Throws the typed error of an `ERROR` event (410/Expired →
 * `GoneError`), and `ConnectionError` if the stream breaks or a line is not a watch event.
 */
export async function* readWatchEvents<T extends KubeObject>(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  target: Required<RequestTarget>,
): AsyncGenerator<WatchEvent<T>, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal.aborted) return;
        throw new ConnectionError(target, { cause: error });
      }
      if (chunk.done) {
        buffered += decoder.decode();
        if (buffered.trim() !== '' && !signal.aborted) yield toEvent<T>(buffered, target);
        return;
      }
      buffered += decoder.decode(chunk.value, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim() !== '') {
          const event = toEvent<T>(line, target);
          if (signal.aborted) return;
          yield event;
        }
        newline = buffered.indexOf('\n');
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

function toEvent<T extends KubeObject>(
  line: string,
  target: Required<RequestTarget>,
): WatchEvent<T> {
  let raw: RawEvent;
  try {
    raw = JSON.parse(line) as RawEvent;
  } catch (error) {
    throw new ConnectionError(target, { cause: error });
  }
  if (raw.type === 'ERROR') {
    const status = isStatus(raw.object)
      ? raw.object
      : { kind: 'Status' as const, code: 500, message: JSON.stringify(raw.object) };
    throw errorFromStatus(status, target);
  }
  if (raw.type === undefined || !eventTypes.has(raw.type) || typeof raw.object !== 'object') {
    throw new ConnectionError(target, {
      cause: new Error(`unexpected watch event: ${line.slice(0, 200)}`),
    });
  }
  return { type: raw.type as WatchEventType, object: raw.object as T };
}
