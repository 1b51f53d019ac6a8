import { type KubeObject } from '@steward/kube';
import { describe, expect, it } from 'vitest';
import { ObjectHealthTracker } from './object-health.js';

const gizmo = (name: string, extra: Partial<KubeObject['metadata']> = {}, status?: object) =>
  ({
    apiVersion: 'v1',
    kind: 'Gizmo',
    metadata: { name, namespace: 'shop', generation: 1, ...extra },
    ...(status ? { status } : {}),
  }) as KubeObject;

describe('ObjectHealthTracker', () => {
  it('keeps the oldest unobserved generation until status catches up', () => {
    let now = 1_000;
    const t = new ObjectHealthTracker(() => now);
    t.seen(gizmo('a', { generation: 1 }));
    now = 5_000;
    t.seen(gizmo('a', { generation: 2 }, { observedGeneration: 1 }));
    expect(t.facts([gizmo('a', { generation: 2 }, { observedGeneration: 1 })])[0]).toMatchObject({
      generationUnobservedSince: 1_000,
    });
    t.seen(gizmo('a', { generation: 2 }, { observedGeneration: 2 }));
    expect(
      t.facts([gizmo('a', { generation: 2 }, { observedGeneration: 2 })])[0],
    ).not.toHaveProperty('generationUnobservedSince');
  });

  it('counts failures in a row, reset by a success', () => {
    let now = 0;
    const t = new ObjectHealthTracker(() => now);
    for (let i = 0; i < 3; i++) t.failed('shop/a');
    expect(t.facts([gizmo('a')])[0]).toMatchObject({ consecutiveFailures: 3, lastSuccessAt: 0 });
    now = 9_000;
    t.succeeded('shop/a');
    expect(t.facts([gizmo('a')])[0]).toMatchObject({
      consecutiveFailures: 0,
      lastSuccessAt: 9_000,
    });
  });

  it('reads Ready and Terminating from the object, and forgets objects that left the cache', () => {
    const t = new ObjectHealthTracker(() => Date.parse('2026-12-01T00:10:00Z'));
    const notReady = gizmo(
      'b',
      { deletionTimestamp: '2026-12-01T00:00:00Z' },
      {
        conditions: [
          { type: 'Ready', status: 'False', lastTransitionTime: '2026-12-01T00:05:00Z' },
        ],
      },
    );
    t.failed('shop/b');
    expect(t.facts([notReady])[0]).toMatchObject({
      ready: 'false',
      notReadySince: Date.parse('2026-12-01T00:05:00Z'),
      terminatingSince: Date.parse('2026-12-01T00:00:00Z'),
      consecutiveFailures: 1,
    });
    t.facts([]);
    expect(t.facts([notReady])[0]).toMatchObject({ consecutiveFailures: 0 });
  });
});
