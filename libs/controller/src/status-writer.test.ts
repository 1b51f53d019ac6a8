import { type KubeObject, type ResourceType } from '@steward/kube';
import { describe, expect, it } from 'vitest';
import { type ObjectWithStatus, type StatusClient, StatusWriter } from './status-writer.js';

const Widgets: ResourceType = {
  group: 'smoke.steward.dev',
  version: 'v1alpha1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

/** A StatusClient that answers a merge patch with the object as the server would store it. */
function recordingClient() {
  const patches: Record<string, unknown>[] = [];
  const client = {
    mergePatch: async (_rt: ResourceType, _name: string, _ns: string, patch: unknown) => {
      const p = patch as { status: Record<string, unknown> };
      patches.push(p.status);
      return { ...widget, status: p.status } as unknown as KubeObject;
    },
    get: async () => widget as unknown as KubeObject,
  } as unknown as StatusClient;
  return { client, patches };
}

const widget: ObjectWithStatus = {
  apiVersion: 'smoke.steward.dev/v1alpha1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'a', generation: 3, resourceVersion: '7' },
  status: {
    observedGeneration: 2,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Ready',
        message: 'up',
        observedGeneration: 2,
        lastTransitionTime: '2026-12-06T00:00:00Z',
      },
    ],
  },
};

describe('StatusWriter observe option', () => {
  it('stamps the object’s generation by default', async () => {
    const { client, patches } = recordingClient();
    await new StatusWriter(client, Widgets, widget).write({
      conditions: [{ type: 'Paused', status: 'True', reason: 'ReconcilePaused', message: 'x' }],
    });
    expect(patches[0]).toMatchObject({ observedGeneration: 3 });
    const conditions = patches[0]!['conditions'] as { type: string; observedGeneration: number }[];
    expect(conditions.map((c) => [c.type, c.observedGeneration])).toEqual([
      ['Ready', 3],
      ['Paused', 3],
    ]);
  });

  it('observe: false keeps the generation the status had observed, on every stamp', async () => {
    const { client, patches } = recordingClient();
    await new StatusWriter(client, Widgets, widget).write(
      { conditions: [{ type: 'Paused', status: 'True', reason: 'ReconcilePaused', message: 'x' }] },
      { observe: false },
    );
    expect(patches[0]).toMatchObject({ observedGeneration: 2 });
    const conditions = patches[0]!['conditions'] as { type: string; observedGeneration: number }[];
    expect(conditions.map((c) => [c.type, c.observedGeneration])).toEqual([
      ['Ready', 2],
      ['Paused', 2],
    ]);
  });
});
