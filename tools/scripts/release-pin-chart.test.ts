import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { controlPlaneBinaries } from '@steward/testing';
import { renderChart } from '@steward/testing-charts';

/**
 * tools/release/pin-chart.sh, which release.yml runs on each controller chart before `helm
 * package`: the packaged chart pulls the released image by digest.
 */
const root = join(import.meta.dirname, '..', '..');
const script = join(root, 'tools', 'release', 'pin-chart.sh');
const digest = `sha256:${'c'.repeat(64)}`;

/** A copy of charts/ (the controller charts link ../../steward-common) to pin in place. */
function chartsCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pin-chart-'));
  cpSync(join(root, 'charts'), dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

async function pin(...args: string[]): Promise<{ code: number; output: string }> {
  const { helm } = await controlPlaneBinaries();
  return promisify(execFile)('bash', [script, ...args], {
    env: { ...process.env, STEWARD_HELM_BIN: helm },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      output: e.stdout + e.stderr,
    }),
  );
}

describe('release: pin-chart.sh', () => {
  it.each(['cache-cluster-controller', 'postgres-cluster-controller'])(
    'pins %s to version and digest: the Deployment pulls repository@digest',
    async (chart) => {
      const dir = join(chartsCopy(), chart);
      const repository = `ghcr.io/steward-dev/${chart}`;
      const result = await pin(dir, '1.4.0-rc.1', repository, digest);
      expect(result.output).toMatch(`pin-chart: ${chart} 1.4.0-rc.1 -> ${repository}@${digest}`);
      expect(result.code).toBe(0);
      expect(readFileSync(join(dir, 'Chart.yaml'), 'utf8')).toMatch(
        /^version: 1\.4\.0-rc\.1\nappVersion: '1\.4\.0-rc\.1'$/m,
      );
      const manifests = await renderChart(dir);
      const deployment = manifests.find((m) => m.kind === 'Deployment') as unknown as {
        spec: { template: { spec: { containers: { image: string }[] } } };
      };
      expect(deployment.spec.template.spec.containers[0]!.image).toBe(`${repository}@${digest}`);
    },
  );

  it.each([
    [
      'a version that is not semver',
      ['v1.2', 'ghcr.io/x/y', digest],
      /version v1\.2 is not semver/,
    ],
    [
      'a digest that is not sha256',
      ['1.2.3', 'ghcr.io/x/y', 'sha256:abc'],
      /digest sha256:abc is not/,
    ],
    [
      'a repository with a digest',
      ['1.2.3', `ghcr.io/x/y@${digest}`, digest],
      /is not an image repository/,
    ],
  ])('refuses %s', async (_, args, message) => {
    const dir = join(chartsCopy(), 'kafka-topic-controller');
    const result = await pin(dir, ...args);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(message);
  });

  it('refuses a chart pinned already, rather than pinning it twice', async () => {
    const dir = join(chartsCopy(), 'database-instance-controller');
    const repository = 'ghcr.io/steward-dev/database-instance-controller';
    expect((await pin(dir, '1.2.3', repository, digest)).code).toBe(0);
    const again = await pin(dir, '1.2.3', repository, digest);
    expect(again.code).toBe(1);
    expect(again.output).toMatch(/nothing to pin .*Chart\.yaml/);
  });
});
