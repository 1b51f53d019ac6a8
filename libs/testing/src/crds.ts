import {
  ApiextensionsV1Api,
  type KubeConfig,
  KubernetesObjectApi,
  loadAllYaml,
  PatchStrategy,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { eventually } from './wait.js';

export interface InstalledCRD {
  name: string;
  group: string;
  plural: string;
  /** The storage version. */
  version: string;
}

const fieldManager = 'steward-testing';

/**
 * Server-side applies every CustomResourceDefinition found in the given files or directories
 * (`*.yaml`, `*.yml`, `*.json`, recursively) and resolves once each is Established with its names
 * accepted and its resource path answers a list request. Any other kind of object in those files is
 * an error: CRD directories hold CRDs only.
 */
export async function installCRDs(
  kubeConfig: KubeConfig,
  ...paths: string[]
): Promise<InstalledCRD[]> {
  const crds: V1CustomResourceDefinition[] = [];
  for (const file of await manifestFiles(paths)) {
    for (const doc of loadAllYaml(await readFile(file, 'utf8'))) {
      if (doc == null) continue;
      if (doc.kind !== 'CustomResourceDefinition') {
        throw new Error(
          `steward: ${file} holds a ${String(doc.kind)}; installCRDs takes CRDs only`,
        );
      }
      crds.push(doc as V1CustomResourceDefinition);
    }
  }
  if (crds.length === 0) throw new Error(`steward: no CRDs found in ${paths.join(', ')}`);

  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const crd of crds) {
    await objects.patch(
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', ...crd },
      undefined,
      undefined,
      fieldManager,
      true,
      PatchStrategy.ServerSideApply,
    );
  }

  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const installed: InstalledCRD[] = [];
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    await eventually(
      async () => {
        const current = await api.readCustomResourceDefinition({ name });
        const conditions = current.status?.conditions ?? [];
        const isTrue = (type: string): boolean =>
          conditions.some((c) => c.type === type && c.status === 'True');
        return isTrue('Established') && isTrue('NamesAccepted');
      },
      { description: `CRD ${name} to be Established`, timeoutMs: 60_000 },
    );
    const version =
      crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name ?? '';
    const entry = { name, group: crd.spec.group, plural: crd.spec.names.plural, version };
    await eventually(
      async () => {
        await objects.list(`${entry.group}/${entry.version}`, crd.spec.names.kind);
        return true;
      },
      { description: `${entry.plural}.${entry.group} to be served`, timeoutMs: 60_000 },
    );
    installed.push(entry);
  }
  return installed;
}

async function manifestFiles(paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      const entries = await readdir(path, { withFileTypes: true });
      const nested = entries
        .filter((e) => e.isDirectory() || ['.yaml', '.yml', '.json'].includes(extname(e.name)))
        .map((e) => join(path, e.name))
        .sort();
      files.push(...(await manifestFiles(nested)));
    } else {
      files.push(path);
    }
  }
  return files;
}
