import { renderConfigMap as render } from '@steward/workload';
import { ConfigFileName, renderConfig } from './config.js';
import { childMeta, clusterName } from './labels.js';
import { childNames } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/** The ConfigMap `<name>-config`: redis.conf (renderConfig), mounted read-only at /etc/cache. */
export function renderConfigMap(input: RenderInput): ChildObject {
  return render(childMeta(input.cluster), childNames(clusterName(input.cluster)).configMap, {
    [ConfigFileName]: renderConfig(input),
  });
}
