import { ReadableStream } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import { ConnectionError, GoneError, InvalidError } from './errors.js';
import { type KubeObject } from './kube-object.js';
import { readWatchEvents, type WatchEvent } from './watch.js';

const target = { method: 'GET', path: '/api/v1/configmaps' };

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

function line(type: string, object: unknown): string {
  return JSON.stringify({ type, object }) + '\n';
}

const cm = (name: string, rv: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, resourceVersion: rv },
});

async function collect(
  stream: ReadableStream<Uint8Array>,
  signal = new AbortController().signal,
): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  for await (const event of readWatchEvents(stream, signal, target)) events.push(event);
  return events;
}

describe('readWatchEvents', () => {
  it('yields one event per line, whatever the chunking, and ends with the stream', async () => {
    const text =
      line('ADDED', cm('a', '1')) + line('MODIFIED', cm('a', '2')) + line('DELETED', cm('a', '3'));
    for (const size of [1, 7, 64, text.length]) {
      const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
      const events = await collect(streamOf(...chunks));
      expect(events.map((e) => `${e.type}:${e.object.metadata.resourceVersion}`)).toEqual([
        'ADDED:1',
        'MODIFIED:2',
        'DELETED:3',
      ]);
    }
  });

  it('passes BOOKMARK events through and reads a last line without a newline', async () => {
    const bookmark = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '9' } };
    const events = await collect(
      streamOf(line('ADDED', cm('a', '1')), JSON.stringify({ type: 'BOOKMARK', object: bookmark })),
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(events[1]?.object).toEqual(bookmark);
  });

  it('throws GoneError for an ERROR event carrying 410 Expired, after the events before it', async () => {
    const seen: string[] = [];
    const error = await (async () => {
      try {
        for await (const event of readWatchEvents(
          streamOf(
            line('ADDED', cm('a', '1')),
            line('ERROR', {
              kind: 'Status',
              apiVersion: 'v1',
              status: 'Failure',
              code: 410,
              reason: 'Expired',
              message: 'too old resource version: 1 (206)',
            }),
            line('ADDED', cm('b', '2')),
          ),
          new AbortController().signal,
          target,
        )) {
          seen.push(event.object.metadata.name ?? '');
        }
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(seen).toEqual(['a']);
    expect(error).toBeInstanceOf(GoneError);
    expect((error as GoneError).message).toBe('too old resource version: 1 (206)');
    expect((error as GoneError).path).toBe(target.path);
  });

  it('throws the typed error of any other ERROR Status', async () => {
    await expect(
      collect(
        streamOf(line('ERROR', { kind: 'Status', code: 422, reason: 'Invalid', message: 'bad' })),
      ),
    ).rejects.toBeInstanceOf(InvalidError);
  });

  it('throws ConnectionError for a line that is not a watch event', async () => {
    await expect(collect(streamOf('<html>\n'))).rejects.toBeInstanceOf(ConnectionError);
    await expect(collect(streamOf(line('SURPRISE', {})))).rejects.toBeInstanceOf(ConnectionError);
  });

  it('ends quietly when the signal aborts, even with the stream still open', async () => {
    const controller = new AbortController();
    const encoder = new TextEncoder();
    let stop: (reason: unknown) => void = () => undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode(line('ADDED', cm('a', '1'))));
        stop = (reason) => c.error(reason);
      },
    });
    const events: string[] = [];
    for await (const event of readWatchEvents(stream, controller.signal, target)) {
      events.push(event.type);
      controller.abort();
      stop(controller.signal.reason); // what fetch does to the body when its signal aborts
    }
    expect(events).toEqual(['ADDED']);
  });

  it('throws ConnectionError when the stream breaks on its own', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.error(new Error('socket hang up'));
      },
    });
    const error = await collect(stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).cause).toEqual(new Error('socket hang up'));
  });
});
