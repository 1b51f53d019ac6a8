import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { BuiltInImages as cacheImages } from '@steward/cache-cluster';
import { BuiltInImages as postgresImages } from '@steward/postgres-cluster';
import { loadExamples } from './examples.js';

/**
 * The registry and owner images are published under is set once, `IMAGE_REPOSITORY` in
 * tools/node-tier/images/versions.env: the node tier names its builds with it and the release
 * workflow pushes them there. Everything else that names an image must agree with it.
 */
const root = join(import.meta.dirname, '..', '..');
const versionsEnv = join(root, 'tools', 'node-tier', 'images', 'versions.env');

function readVersionsEnv(): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of readFileSync(versionsEnv, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) vars[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  }
  return vars;
}

/** build.sh's upstream_version: 5:7.0.15-1~deb12u10 -> 7.0.15, 8.1.1+dfsg1-3 -> 8.1.1. */
function upstreamVersion(debian: string): string {
  let v = debian.replace(/^[^:]*:/, '');
  v = v.replace(/-[^-]*$/, '');
  return v.replace(/\+.*$/, '').replace(/~.*$/, '');
}

/** The operand images build.sh builds, as the references it gives them. */
function builtOperandImages(vars: Record<string, string>): string[] {
  const refs: string[] = [];
  for (const [key, value] of Object.entries(vars)) {
    const m = /^(REDIS|VALKEY|POSTGRES)_[0-9_]+_PACKAGES$/.exec(key);
    if (!m) continue;
    // the first package is the one the image is for: <package>=<Debian version>
    const main = value.split(/\s+/)[0]!.replace(/^[^=]*=/, '');
    refs.push(`${vars['IMAGE_REPOSITORY']}/${m[1]!.toLowerCase()}:${upstreamVersion(main)}`);
  }
  return refs.sort();
}

describe('image names', () => {
  const vars = readVersionsEnv();
  const repository = vars['IMAGE_REPOSITORY'];

  it('publishes under one registry repository, not a local-only name', () => {
    expect(repository).toMatch(/^[a-z0-9.-]+\.[a-z]+(:[0-9]+)?\/[a-z0-9._-]+$/);
    expect(repository).not.toMatch(/^localhost/);
    expect(upstreamVersion('5:7.0.15-1~deb12u10')).toBe('7.0.15');
    expect(upstreamVersion('8.1.1+dfsg1-3+deb13u3')).toBe('8.1.1');
    expect(upstreamVersion('17.12-0+deb13u1')).toBe('17.12');
  });

  it('the built-in catalogues name exactly the operand images the node tier builds', () => {
    const built = builtOperandImages(vars);
    expect(built).toHaveLength(5);
    const catalogue = [...cacheImages, ...postgresImages];
    expect(catalogue.map((i) => i.image).sort()).toEqual(built);
    for (const { engine, version, image } of catalogue) {
      // engine and major (or major.minor) version match the image's name and tag
      expect(image.startsWith(`${repository}/${engine}:${version}.`), image).toBe(true);
    }
  });

  it("each controller chart's image.repository is <IMAGE_REPOSITORY>/<chart>", () => {
    const charts = readdirSync(join(root, 'charts'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name.endsWith('-controller'))
      .map((d) => d.name);
    expect(charts.length).toBeGreaterThanOrEqual(4);
    for (const chart of charts) {
      const values = load(readFileSync(join(root, 'charts', chart, 'values.yaml'), 'utf8')) as {
        image: { repository: string };
      };
      expect(values.image.repository).toBe(`${repository}/${chart}`);
    }
  });

  it('the examples name only images the node tier builds', async () => {
    const built = new Set(builtOperandImages(vars));
    const named = (await loadExamples(join(root, 'examples')))
      .filter((e) => e.object.kind === 'ProviderProfile')
      .flatMap(
        (e) =>
          (e.object as unknown as { spec: { kubernetes?: { images?: { image: string }[] } } }).spec
            .kubernetes?.images ?? [],
      )
      .map((i) => i.image);
    expect(named.length).toBeGreaterThan(0);
    for (const image of named) expect(built.has(image), image).toBe(true);
  });
});
