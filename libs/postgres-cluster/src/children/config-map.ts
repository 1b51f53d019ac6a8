import { renderConfigMap as render } from '@steward/workload';
import { renderConfigFiles } from './config.js';
import { childMeta, childNames, clusterName } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/** The ConfigMap `<name>-config`: postgresql.conf, pg_hba.conf and the instance agent. */
export function renderConfigMap(input: RenderInput): ChildObject {
  return render(
    childMeta(input.cluster),
    childNames(clusterName(input.cluster)).configMap,
    renderConfigFiles(input),
  );
}
