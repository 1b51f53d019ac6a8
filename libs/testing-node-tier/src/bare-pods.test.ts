import { describe, expect, it } from 'vitest';
import { restrictedPod } from './bare-pods.js';

describe('restrictedPod', () => {
  it('runs the container non-root, read-only, without capabilities, with its scratch volumes', () => {
    const pod = restrictedPod(
      { name: 'r0', labels: { server: 'r0' } },
      { name: 'server', image: 'ghcr.io/steward-dev/redis:7.0.15', command: ['redis-server'] },
      { data: '/data', tmp: '/tmp' },
    );
    expect(pod.metadata).toEqual({ name: 'r0', labels: { server: 'r0' } });
    expect(pod.spec).toMatchObject({
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 1,
      securityContext: { runAsNonRoot: true, runAsUser: 999, runAsGroup: 999, fsGroup: 999 },
      volumes: [
        { name: 'data', emptyDir: {} },
        { name: 'tmp', emptyDir: {} },
      ],
    });
    expect(pod.spec!.containers[0]).toEqual({
      name: 'server',
      image: 'ghcr.io/steward-dev/redis:7.0.15',
      imagePullPolicy: 'Never',
      command: ['redis-server'],
      securityContext: {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      },
      volumeMounts: [
        { name: 'data', mountPath: '/data' },
        { name: 'tmp', mountPath: '/tmp' },
      ],
    });
  });
});
