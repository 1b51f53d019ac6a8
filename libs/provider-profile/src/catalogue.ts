import { type KubernetesImage } from '@steward/provider-profile-api';

/** `1.10` after `1.9`, `17` after `8.1`: versions ordered by their numeric parts. */
function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? -1) - (y[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** `redis 7.0, 8.0; valkey 8.1`: the catalogue by engine, engines and versions ordered. */
export function describeImages(images: readonly KubernetesImage[]): string {
  const byEngine = new Map<string, string[]>();
  for (const { engine, version } of images) {
    byEngine.set(engine, [...(byEngine.get(engine) ?? []), version]);
  }
  return [...byEngine.keys()]
    .sort()
    .map((engine) => `${engine} ${byEngine.get(engine)!.sort(compareVersions).join(', ')}`)
    .join('; ');
}
