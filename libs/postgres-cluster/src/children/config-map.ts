import { renderConfigFiles } from './config.js';
import { childNames, clusterName, clusterNamespace, commonLabels } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/** The ConfigMap `<name>-config`: postgresql.conf, pg_hba.conf and the instance agent. */
export function renderConfigMap(input: RenderInput): ChildObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: childNames(clusterName(input.cluster)).configMap,
      namespace: clusterNamespace(input.cluster),
      labels: commonLabels(input.cluster),
    },
    data: renderConfigFiles(input),
  };
}
