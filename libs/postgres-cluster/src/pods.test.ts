import { describe, expect, it } from 'vitest';
import { InstructionAnnotation } from './children/index.js';
import { type InstanceView } from './plan/plan.js';
import { instanceFacts, type Pod } from './pods.js';

const pod = (ordinal: number, instruction?: string, running = true): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: `pg-${ordinal}`,
    ...(instruction ? { annotations: { [InstructionAnnotation]: instruction } } : {}),
  },
  status: {
    phase: 'Running',
    podIP: `10.0.0.${ordinal + 1}`,
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [
      { name: 'postgres', ready: true, state: running ? { running: {} } : { waiting: {} } },
    ],
  },
});

describe('instanceFacts', () => {
  it('observes every running pod that has an instruction, one told to wait included, in ordinal order', async () => {
    const asked: string[] = [];
    const refused: InstanceView = { reachable: false, error: 'connect ECONNREFUSED' };
    const facts = await instanceFacts(
      [
        pod(2, 'standby 10.0.0.2'),
        pod(0, 'wait'),
        pod(1, 'primary'),
        pod(3),
        pod(4, 'primary', false),
      ],
      'pg',
      async (ip) => {
        asked.push(ip);
        return refused;
      },
    );
    expect(facts.map((f) => f.name)).toEqual(['pg-0', 'pg-1', 'pg-2', 'pg-3', 'pg-4']);
    // the pod told to wait is observed: a switchover learns from it that PostgreSQL has stopped
    expect(facts[0]).toMatchObject({ instruction: 'wait', view: refused });
    expect(asked.sort()).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3']);
    // no instruction yet, or the container not running: nothing to ask
    expect(facts[3]!.view).toBeUndefined();
    expect(facts[4]!.view).toBeUndefined();
  });
});
