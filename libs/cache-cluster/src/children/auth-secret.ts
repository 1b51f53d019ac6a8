import { clusterName, clusterNamespace, commonLabels } from './labels.js';
import { childNames, PasswordKey } from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

/**
 * The Secret `<name>-auth` with the generated password under `password`, as `data` (base64):
 * `stringData` is write-only, so a server-side-applied `stringData` would never be seen again
 * and could not be compared. Only for a cluster without `spec.auth.existingSecret`.
 */
export function renderAuthSecret(input: RenderInput, password: string): ChildObject {
  if (password.length === 0) {
    throw new RangeError('steward/cache-cluster: the generated password is empty');
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: childNames(clusterName(input.cluster)).authSecret,
      namespace: clusterNamespace(input.cluster),
      labels: commonLabels(input.cluster),
    },
    type: 'Opaque',
    data: { [PasswordKey]: Buffer.from(password, 'utf8').toString('base64') },
  };
}
