import { loadAllYaml } from '@kubernetes/client-node';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from './repo-root.js';

/** What a test needs of a kind to write one (a `@steward/crd` kind: `CacheCluster`, …). */
export interface KindOf {
  readonly apiVersion: string;
  readonly resourceType: { readonly kind: string };
}

/** An object of `kind` named `name` (in `namespace`, when it is namespaced) with `spec`. */
export function customObject<T>(
  kind: KindOf,
  metadata: { name: string; namespace?: string },
  spec: unknown,
): T {
  return { apiVersion: kind.apiVersion, kind: kind.resourceType.kind, metadata, spec } as T;
}

/**
 * Every object of `kind` in the repository's `examples/<folder>/*.yaml`, as a user would apply
 * them — in `namespace`, when given (the documentation's examples are proven admitted by the
 * kinds' admission tests).
 */
export async function examplesOf<T extends { metadata?: object }>(
  folder: string,
  kind: string,
  namespace?: string,
): Promise<T[]> {
  const dir = join(repoRoot(), 'examples', folder);
  const files = (await readdir(dir)).filter((file) => file.endsWith('.yaml'));
  const docs = await Promise.all(
    files.map(async (file) => loadAllYaml(await readFile(join(dir, file), 'utf8')) as unknown[]),
  );
  return docs
    .flat()
    .filter((o): o is T => (o as { kind?: string } | null)?.kind === kind)
    .map((o) => (namespace ? { ...o, metadata: { ...o.metadata, namespace } } : o));
}

/**
 * The API server's refusal message of `call` — an error `isRefusal` recognises (e.g. `isInvalid`);
 * fails when the server accepts it, and passes any other error on.
 */
export async function refusalOf(
  call: Promise<unknown>,
  isRefusal: (error: unknown) => boolean,
): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (isRefusal(error)) return (error as Error).message;
    throw error;
  }
  throw new Error('the API server accepted it');
}
