import { KubeConfig } from '@kubernetes/client-node';

/**
 * A copy of `kubeConfig` whose current cluster points at `server` — e.g. a `startTcpProxy` port in
 * front of the real API server — with the same credentials and CA.
 */
export function kubeConfigWithServer(kubeConfig: KubeConfig, server: string): KubeConfig {
  const copy = new KubeConfig();
  copy.loadFromString(kubeConfig.exportConfig());
  const current = copy.getCurrentCluster();
  if (!current) throw new Error('steward: kubeconfig has no current cluster');
  const clusters = copy.clusters.map((c) => (c.name === current.name ? { ...c, server } : c));
  copy.loadFromOptions({
    clusters,
    users: copy.users,
    contexts: copy.contexts,
    currentContext: copy.currentContext,
  });
  return copy;
}
