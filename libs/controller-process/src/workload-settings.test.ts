import { describe, expect, it } from 'vitest';
import { workloadSettings } from './workload-settings.js';

describe('workloadSettings', () => {
  it('has no default profile and no controller identity when nothing is set', () => {
    expect(workloadSettings({})).toEqual({
      defaultProfile: undefined,
      controllerIdentity: undefined,
    });
  });

  it('reads the default profile and the controller’s pod labels (the chart sets both)', () => {
    expect(
      workloadSettings({
        STEWARD_DEFAULT_PROVIDER_PROFILE: 'in-cluster',
        POD_NAMESPACE: 'steward-system',
        STEWARD_CONTROLLER_POD_LABELS:
          'app.kubernetes.io/instance=steward,app.kubernetes.io/name=cache-cluster-controller',
      }),
    ).toEqual({
      defaultProfile: 'in-cluster',
      controllerIdentity: {
        namespace: 'steward-system',
        podLabels: {
          'app.kubernetes.io/instance': 'steward',
          'app.kubernetes.io/name': 'cache-cluster-controller',
        },
      },
    });
  });

  it('refuses a malformed value, naming the variable', () => {
    expect(() => workloadSettings({ STEWARD_DEFAULT_PROVIDER_PROFILE: 'Not A Name' })).toThrow(
      /STEWARD_DEFAULT_PROVIDER_PROFILE/,
    );
    expect(() =>
      workloadSettings({ POD_NAMESPACE: 'x', STEWARD_CONTROLLER_POD_LABELS: 'no-equals-sign' }),
    ).toThrow(/STEWARD_CONTROLLER_POD_LABELS/);
  });
});
