// The names `new-project.ts controller <Kind>` derives and the kinds it refuses; that its output
// passes the whole pipeline is new-project.int.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindFromChartName } from '../charts/controller-chart.js';
import {
  controllerFiles,
  controllerNames,
  familyPaths,
  InvalidControllerNameError,
  MAX_FAMILY_LENGTH,
  pluralOf,
} from './new-controller.js';
import { existingFamily, parseControllerArgs } from './new-project.js';

const root = join(import.meta.dirname, '..', '..');
const versions = { typebox: '1.0.0', 'reflect-metadata': '0.2.2', tsyringe: '4.10.0' };

describe('controllerNames', () => {
  it.each([
    {
      kind: 'Widget',
      names: {
        family: 'widget',
        camel: 'widget',
        controllerName: 'widget',
        group: 'widget.steward.dev',
        plural: 'widgets',
        shortName: 'wid',
        apiLib: 'widget-api',
        app: 'widget-controller',
        e2e: 'widget-controller-e2e',
      },
    },
    {
      kind: 'CacheCluster',
      names: {
        family: 'cache-cluster',
        camel: 'cacheCluster',
        controllerName: 'cachecluster',
        group: 'cachecluster.steward.dev',
        plural: 'cacheclusters',
        shortName: 'cc',
        apiLib: 'cache-cluster-api',
        app: 'cache-cluster-controller',
        e2e: 'cache-cluster-controller-e2e',
      },
    },
    {
      kind: 'S3Bucket',
      names: { family: 's3-bucket', group: 's3bucket.steward.dev', shortName: 'sb' },
    },
  ])('names the family of $kind', ({ kind, names }) => {
    expect(controllerNames(kind)).toMatchObject({ kind, ...names });
  });

  it.each(['Widget', 'CacheCluster', 'S3Bucket', 'PostgresClusterBackup'])(
    'names the chart of %s so that the chart generator reads the kind back',
    (kind) => {
      expect(kindFromChartName(controllerNames(kind).app)).toBe(kind);
    },
  );

  it('takes the group, plural and short name it is given', () => {
    expect(
      controllerNames('Widget', { group: 'toys.example.com', plural: 'widgetry', shortName: 'wg' }),
    ).toMatchObject({ group: 'toys.example.com', plural: 'widgetry', shortName: 'wg' });
  });

  it.each([
    ['box', 'boxes'],
    ['policy', 'policies'],
    ['gateway', 'gateways'],
    ['cachecluster', 'cacheclusters'],
  ])('pluralises %s as %s', (singular, plural) => {
    expect(pluralOf(singular)).toBe(plural);
  });

  it.each([
    ['a lower-case kind', 'widget', {}, 'is not a PascalCase kind'],
    ['a run of capitals', 'HTTPRoute', {}, 'is not a PascalCase kind'],
    ['an underscore', 'Cache_Cluster', {}, 'is not a PascalCase kind'],
    ['no kind at all', '', {}, 'is not a PascalCase kind'],
    [
      'a family too long for the chart’s object names',
      'Very'.repeat(MAX_FAMILY_LENGTH / 4 + 1),
      {},
      `longer than ${MAX_FAMILY_LENGTH} characters`,
    ],
    ['a group without a dot', 'Widget', { group: 'widgets' }, 'is not an API group'],
    ['a group with capitals', 'Widget', { group: 'Toys.example.com' }, 'is not an API group'],
    ['a plural with a dash', 'Widget', { plural: 'wid-gets' }, 'is not a resource name'],
    ['a short name equal to the kind', 'Widget', { shortName: 'widget' }, 'is not a short name'],
  ])('refuses %s', (_case, kind, options, message) => {
    expect(() => controllerNames(kind, options)).toThrow(InvalidControllerNameError);
    expect(() => controllerNames(kind, options)).toThrow(message);
  });
});

describe('parseControllerArgs', () => {
  it('reads the kind and the flags', () => {
    expect(
      parseControllerArgs(['Widget', '--group', 'toys.example.com', '--short-name', 'wg']),
    ).toMatchObject({ kind: 'Widget', group: 'toys.example.com', shortName: 'wg' });
  });

  it.each([[['Widget', '--colour', 'blue']], [['Widget', '--group']], [[]]])(
    'refuses %j with the usage',
    (args) => {
      expect(() => parseControllerArgs(args)).toThrow(/usage: new-project.ts/);
    },
  );
});

describe('existingFamily', () => {
  it('finds every part of a family that exists, and every Nx project of its names', () => {
    expect(existingFamily(root, controllerNames('KafkaTopic'))).toEqual(
      expect.arrayContaining([
        'libs/kafka-topic-api',
        'libs/kafka-topic',
        'apps/kafka-topic-controller',
        'charts/kafka-topic-controller',
        'e2e/kafka-topic-controller-e2e',
        'examples/kafka-topic',
        'tools/charts/controllers/kafka-topic-controller.ts',
        'Nx project kafka-topic',
      ]),
    );
    // `Tools` would make a domain lib named like the tools project
    expect(existingFamily(root, controllerNames('Tools'))).toEqual(['Nx project tools']);
    expect(existingFamily(root, controllerNames('NoSuchWidgetAnywhere'))).toEqual([]);
  });
});

describe('controllerFiles', () => {
  it('writes only inside the family’s paths (the app’s package.json comes from its imports)', () => {
    const names = controllerNames('Widget');
    const files = Object.keys(controllerFiles(names, versions));
    const outside = files.filter((f) => !familyPaths(names).some((p) => f.startsWith(`${p}/`)));
    expect(outside).toEqual([]);
    expect(files).not.toContain('apps/widget-controller/package.json');
    expect(files).toEqual(
      expect.arrayContaining([
        'libs/widget-api/src/widget.ts',
        'libs/widget/src/plan-widget.ts',
        'libs/widget/src/plan-widget.test.ts',
        'libs/widget/tests/controller.int.test.ts',
        'apps/widget-controller/src/main.ts',
        'charts/widget-controller/Chart.yaml',
        'e2e/widget-controller-e2e/tests/chart.int.test.ts',
        'examples/widget/20-widget.yaml',
      ]),
    );
  });
});
