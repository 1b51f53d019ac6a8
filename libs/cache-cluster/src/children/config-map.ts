import { ConfigFileName, renderConfig } from './config.js';
import { clusterName, clusterNamespace, commonLabels } from './labels.js';
import { childNames } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/** The ConfigMap `<name>-config`: redis.conf (renderConfig), mounted read-only at /etc/cache. */
export function renderConfigMap(input: RenderInput): ChildObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: childNames(clusterName(input.cluster)).configMap,
      namespace: clusterNamespace(input.cluster),
      labels: commonLabels(input.cluster),
    },
    data: { [ConfigFileName]: renderConfig(input) },
  };
}
