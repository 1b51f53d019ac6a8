import { describe, expect, it } from 'vitest';
import { type Condition } from './condition.js';
import { nextStatus } from './next-status.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:05:00Z');
const cond = (
  type: string,
  status: Condition['status'],
  reason: string,
  gen: number,
): Condition => ({
  type,
  status,
  reason,
  message: `${type} ${reason}`,
  lastTransitionTime: '2026-01-01T00:00:00Z',
  observedGeneration: gen,
});

describe('nextStatus', () => {
  it('stamps the generation on the status and on every condition, also those not restated', () => {
    const { status, changed } = nextStatus(
      { observedGeneration: 1, conditions: [cond('Ready', 'True', 'Available', 1)] },
      2,
      { conditions: [{ type: 'Synced', status: 'True', reason: 'ReconcileSuccess', message: '' }] },
      t1,
    );
    expect(changed).toBe(true);
    expect(status.observedGeneration).toBe(2);
    expect(status.conditions?.map((c) => [c.type, c.observedGeneration])).toEqual([
      ['Ready', 2],
      ['Synced', 2],
    ]);
  });

  it('reports no change for a converged status, so nothing is written', () => {
    const current = {
      observedGeneration: 3,
      externalName: 'x',
      conditions: [cond('Ready', 'True', 'Available', 3)],
    };
    const { changed, status } = nextStatus(
      current,
      3,
      {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Available', message: 'Ready Available' },
        ],
        fields: { externalName: 'x' },
      },
      t1,
    );
    expect(changed).toBe(false);
    expect(status).toEqual(current);
  });

  it('moves lastTransitionTime only when a status changes', () => {
    const current = { conditions: [cond('Ready', 'False', 'Creating', 1)] };
    const same = nextStatus(
      current,
      1,
      {
        conditions: [{ type: 'Ready', status: 'False', reason: 'Updating', message: 'm' }],
      },
      t1,
    );
    expect(same.status.conditions?.[0]?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    const flipped = nextStatus(
      current,
      1,
      {
        conditions: [{ type: 'Ready', status: 'True', reason: 'Available', message: 'm' }],
      },
      t1,
    );
    expect(flipped.status.conditions?.[0]?.lastTransitionTime).toBe('2026-01-01T00:05:00Z');
  });

  it('forces Ready=False and Synced=False with the reason of a Stalled=True', () => {
    const { status } = nextStatus(
      {
        observedGeneration: 1,
        conditions: [
          cond('Synced', 'True', 'ReconcileSuccess', 1),
          cond('Ready', 'True', 'Available', 1),
        ],
      },
      2,
      { conditions: [{ type: 'Stalled', status: 'True', reason: 'NotSupported', message: 'no' }] },
      t1,
    );
    const by = Object.fromEntries((status.conditions ?? []).map((c) => [c.type, c]));
    expect(by['Stalled']).toMatchObject({
      status: 'True',
      reason: 'NotSupported',
      observedGeneration: 2,
    });
    expect(by['Synced']).toMatchObject({
      status: 'False',
      reason: 'NotSupported',
      message: 'no',
      observedGeneration: 2,
    });
    expect(by['Ready']).toMatchObject({
      status: 'False',
      reason: 'NotSupported',
      observedGeneration: 2,
    });
    expect(status.observedGeneration).toBe(2);
  });

  it('drops Reconciling once Stalled=True: nothing is being retried', () => {
    const { status } = nextStatus(
      { conditions: [cond('Reconciling', 'True', 'ReconcileError', 1)] },
      1,
      { conditions: [{ type: 'Stalled', status: 'True', reason: 'InvalidSpec', message: 'bad' }] },
      t1,
    );
    expect(status.conditions?.map((c) => c.type).sort()).toEqual(['Ready', 'Stalled']);
  });

  it('drops a Stalled the change does not restate: a later write got past the stall', () => {
    const { status } = nextStatus(
      {
        conditions: [
          cond('Ready', 'False', 'InvalidSpec', 2),
          cond('Stalled', 'True', 'InvalidSpec', 2),
        ],
      },
      3,
      { conditions: [{ type: 'Ready', status: 'True', reason: 'Done', message: '' }] },
      t1,
    );
    expect(status.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual(['Ready=True']);
  });

  it('adds no Synced condition to a kind that has none', () => {
    const { status } = nextStatus(
      undefined,
      1,
      {
        conditions: [{ type: 'Stalled', status: 'True', reason: 'InvalidSpec', message: 'bad' }],
      },
      t0,
    );
    expect(status.conditions?.map((c) => `${c.type}=${c.status}`).sort()).toEqual([
      'Ready=False',
      'Stalled=True',
    ]);
  });

  it('removes conditions and fields on request, and keeps other fields', () => {
    const { status } = nextStatus(
      { endpoint: 'e', providerState: 'available', conditions: [cond('Stalled', 'True', 'X', 1)] },
      1,
      { removeConditions: ['Stalled'], fields: { providerState: undefined } },
      t1,
    );
    expect(status).toEqual({ endpoint: 'e', conditions: [], observedGeneration: 1 });
  });
});
