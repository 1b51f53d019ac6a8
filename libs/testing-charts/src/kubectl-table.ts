import { controlPlaneBinaries } from '@steward/testing';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * `kubectl get <resource> -n <namespace> -o wide`, as a user reads it: row name → column → value.
 * Columns are told apart by the header: separated by at least two spaces (a column name may hold
 * one, e.g. READY REPLICAS).
 */
export async function kubectlTable(
  kubeconfigPath: string,
  resource: string,
  namespace: string,
): Promise<Record<string, Record<string, string>>> {
  const { kubectl } = await controlPlaneBinaries();
  const { stdout } = await run(kubectl, [
    '--kubeconfig',
    kubeconfigPath,
    'get',
    resource,
    '-n',
    namespace,
    '-o',
    'wide',
  ]);
  const [header = '', ...rows] = stdout.trimEnd().split('\n');
  const columns = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({
    name: m[0],
    start: m.index,
  }));
  const table: Record<string, Record<string, string>> = {};
  for (const row of rows) {
    const cells: Record<string, string> = {};
    columns.forEach((c, i) => {
      cells[c.name] = row.slice(c.start, columns[i + 1]?.start ?? row.length).trim();
    });
    table[cells['NAME']!] = cells;
  }
  return table;
}

/** `rest_client_requests_total` of a controller's Prometheus scrape, summed by HTTP method. */
export function requestsByMethod(metricsText: string): Record<string, number> {
  const byMethod: Record<string, number> = {};
  for (const m of metricsText.matchAll(/^rest_client_requests_total\{([^}]*)\} (\S+)$/gm)) {
    const method = /method="([A-Z]+)"/.exec(m[1]!)?.[1] ?? '?';
    byMethod[method] = (byMethod[method] ?? 0) + Number(m[2]);
  }
  return byMethod;
}
