import { describe, expect, it } from 'vitest';
import { ConfigError, loadProcessConfig as loadConfig, watchSelection } from './config.js';

describe('loadProcessConfig', () => {
  it('has production defaults: all namespaces, port 8080, leader election in POD_NAMESPACE', () => {
    expect(loadConfig({ POD_NAMESPACE: 'steward-system', POD_NAME: 'dic-0' })).toEqual({
      watchNamespaces: [],
      probePort: 8080,
      probeHost: '0.0.0.0',
      leaderElection: true,
      leaderElectionNamespace: 'steward-system',
      podName: 'dic-0',
      logLevel: 'info',
      maxConcurrentReconciles: 4,
      pollIntervalMs: 60_000,
      busyPollIntervalMs: 10_000,
      manageProviderProfiles: true,
      credentialsRecheckMs: 300_000,
      kubeconfig: undefined,
      otlpEndpoint: undefined,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      STEWARD_WATCH_NAMESPACES: 'team-b,team-a',
      STEWARD_PROBE_PORT: '0',
      STEWARD_LEADER_ELECT: 'false',
      STEWARD_LOG_LEVEL: 'debug',
      STEWARD_MAX_CONCURRENT_RECONCILES: '8',
      STEWARD_POLL_INTERVAL_SECONDS: '30',
      STEWARD_BUSY_POLL_INTERVAL_SECONDS: '2',
      STEWARD_CREDENTIALS_RECHECK_SECONDS: '60',
      KUBECONFIG: '/tmp/kubeconfig',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    expect(config).toMatchObject({
      watchNamespaces: ['team-a', 'team-b'],
      manageProviderProfiles: false,
      probePort: 0,
      leaderElection: false,
      logLevel: 'debug',
      maxConcurrentReconciles: 8,
      pollIntervalMs: 30_000,
      busyPollIntervalMs: 2_000,
      credentialsRecheckMs: 60_000,
      kubeconfig: '/tmp/kubeconfig',
      otlpEndpoint: 'http://collector:4318',
    });
  });

  it.each([
    [{ STEWARD_PROBE_PORT: '80a' }, 'STEWARD_PROBE_PORT must be a whole number from 0 to 65535'],
    [{ STEWARD_PROBE_PORT: '70000' }, 'STEWARD_PROBE_PORT must be a whole number from 0 to 65535'],
    [{ STEWARD_LEADER_ELECT: 'yes' }, 'STEWARD_LEADER_ELECT must be "true" or "false", got "yes"'],
    [{ STEWARD_LOG_LEVEL: 'loud' }, 'STEWARD_LOG_LEVEL must be one of'],
    [{ STEWARD_WATCH_NAMESPACE: 'Team_A' }, 'STEWARD_WATCH_NAMESPACE must be a namespace name'],
    [
      { STEWARD_WATCH_NAMESPACES: 'team-a,Team_B' },
      'STEWARD_WATCH_NAMESPACES must be namespace names (DNS labels) separated by commas, got "Team_B"',
    ],
    [
      { STEWARD_WATCH_NAMESPACES: 'team-a team-b' },
      'STEWARD_WATCH_NAMESPACES must be namespace names (DNS labels) separated by commas, got "team-a team-b"',
    ],
    [{ STEWARD_MAX_CONCURRENT_RECONCILES: '0' }, 'from 1 to 64'],
  ])('rejects %o naming the variable', (env, message) => {
    expect(() => loadConfig({ STEWARD_LEADER_ELECT: 'false', ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ STEWARD_LEADER_ELECT: 'false', ...env })).toThrow(message);
  });

  it.each([
    [{}, []],
    [{ STEWARD_WATCH_NAMESPACES: '' }, []],
    [{ STEWARD_WATCH_NAMESPACES: ' team-b , team-a,,team-b ' }, ['team-a', 'team-b']],
    // The deprecated single-namespace variable still works, and adds to the list.
    [{ STEWARD_WATCH_NAMESPACE: 'team-a' }, ['team-a']],
    [
      { STEWARD_WATCH_NAMESPACE: 'team-c', STEWARD_WATCH_NAMESPACES: 'team-a' },
      ['team-a', 'team-c'],
    ],
    [{ STEWARD_WATCH_NAMESPACE: 'team-a', STEWARD_WATCH_NAMESPACES: 'team-a' }, ['team-a']],
  ])('watches the namespaces of %o: %o (empty: every namespace)', (env, namespaces) => {
    const config = loadConfig({ STEWARD_LEADER_ELECT: 'false', ...env });
    expect(config.watchNamespaces).toEqual(namespaces);
    expect(watchSelection(config)).toEqual(
      namespaces.length > 0 ? { selection: { namespaces } } : {},
    );
  });

  it('manages ProviderProfiles unless told not to, or watching some namespaces', () => {
    const base = { STEWARD_LEADER_ELECT: 'false' };
    expect(loadConfig(base).manageProviderProfiles).toBe(true);
    expect(
      loadConfig({ ...base, STEWARD_MANAGE_PROVIDER_PROFILES: 'false' }).manageProviderProfiles,
    ).toBe(false);
    expect(loadConfig({ ...base, STEWARD_WATCH_NAMESPACE: 'a' }).manageProviderProfiles).toBe(
      false,
    );
    expect(loadConfig({ ...base, STEWARD_WATCH_NAMESPACES: 'a,b' }).manageProviderProfiles).toBe(
      false,
    );
    expect(
      loadConfig({
        ...base,
        STEWARD_WATCH_NAMESPACE: 'a',
        STEWARD_MANAGE_PROVIDER_PROFILES: 'true',
      }).manageProviderProfiles,
    ).toBe(true);
  });

  it('asks for a Lease namespace when leader election is on and none is known', () => {
    expect(() => loadConfig({})).toThrow(/set POD_NAMESPACE .* or set STEWARD_LEADER_ELECT=false/);
  });
});
