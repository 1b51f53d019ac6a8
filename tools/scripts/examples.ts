// The example manifests under examples/: loading them in the order `npm start` applies them, and
// pointing the profiles at the local provider APIs.
import { Namespaces, Secrets, type KubeObject, type ResourceType } from '@steward/kube';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { load as loadYaml } from 'js-yaml';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { allKinds } from './controllers.js';

/**
 * The kinds examples may contain, by `apiVersion/kind`: Namespaces, Secrets and every kind a
 * controller serves (the registry, controllers.ts).
 */
export async function exampleKinds(): Promise<ReadonlyMap<string, ResourceType>> {
  return new Map([
    ['v1/Namespace', Namespaces],
    ['v1/Secret', Secrets],
    ...(await allKinds()).map(
      (k) => [`${k.apiVersion}/${k.definition.kind}`, k.resourceType] as const,
    ),
  ]);
}

export interface Example {
  /** Path relative to the examples directory, e.g. `database-instance/20-orders-db.yaml`. */
  file: string;
  object: KubeObject;
  resourceType: ResourceType;
}

async function yamlFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await yamlFiles(path)));
    else if (/\.ya?ml$/.test(entry.name)) files.push(path);
  }
  return files;
}

/**
 * Every object of every YAML file under `dir`, files in path order and objects in file order;
 * Namespaces first, so that everything else has its namespace. Throws naming the file for a kind
 * it does not know.
 */
export async function loadExamples(dir: string): Promise<Example[]> {
  const kinds = await exampleKinds();
  const examples: Example[] = [];
  for (const path of (await yamlFiles(dir)).sort()) {
    const file = relative(dir, path);
    const docs = (await readFile(path, 'utf8')).split(/^---\s*$/m);
    for (const doc of docs) {
      const object = loadYaml(doc) as KubeObject | null | undefined;
      if (!object) continue;
      const resourceType = kinds.get(`${object.apiVersion}/${object.kind}`);
      if (!resourceType) {
        throw new Error(
          `${file}: ${object.apiVersion}/${object.kind} is not a kind npm start applies`,
        );
      }
      examples.push({ file, object, resourceType });
    }
  }
  const rank = (e: Example) => (e.object.kind === 'Namespace' ? 0 : 1);
  return examples.sort((a, b) => rank(a) - rank(b));
}

/** Local endpoints the profiles of the examples are pointed at. */
export interface LocalEndpoints {
  aws: string;
  gcp: string;
  /** The local broker's bootstrap servers. */
  kafka: string[];
}

/**
 * A copy of `object` with a ProviderProfile's aws/gcp `endpoint` set to the local API, or a kafka
 * profile's `bootstrapServers` to the local broker.
 */
export function withLocalEndpoint(object: KubeObject, endpoints: LocalEndpoints): KubeObject {
  if (object.kind !== 'ProviderProfile') return object;
  // A kubernetes profile names no endpoint: its workloads run in the cluster itself.
  if ((object as ProviderProfile).spec.provider === 'kubernetes') return object;
  const profile = structuredClone(object) as ProviderProfile;
  if (profile.spec.aws) profile.spec.aws.endpoint = endpoints.aws;
  if (profile.spec.gcp) profile.spec.gcp.endpoint = endpoints.gcp;
  if (profile.spec.kafka) profile.spec.kafka.bootstrapServers = [...endpoints.kafka];
  return profile;
}
