import { type Store } from '@steward/informer';
import { type KubeObject } from '@steward/kube';

/**
 * Indexes `store` by `<namespace>/<value of label>` (once per store: a second controller of the
 * same manager reuses the index) and returns the lookup: the pods or claims of one object without
 * a scan of the whole cache every reconcile.
 */
export function indexByLabel<T extends KubeObject>(
  store: Store<T>,
  label: string,
): (namespace: string, name: string) => T[] {
  const index = `steward.dev/by-label:${label}`;
  try {
    store.addIndexers({
      [index]: (obj) => {
        const value = obj.metadata.labels?.[label];
        return value && obj.metadata.namespace ? [`${obj.metadata.namespace}/${value}`] : [];
      },
    });
  } catch {
    // indexed already by another controller of this manager
  }
  return (namespace, name) => store.byIndex(index, `${namespace}/${name}`);
}
