import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  aggregateByNamespace,
  createTelemetry,
  namespaceGauges,
  objectHealthGauges,
  objectHealthMetrics,
  type ObjectHealthFacts,
  type Telemetry,
} from './index.js';

const now = Date.parse('2026-12-01T12:00:00Z');
const ago = (seconds: number) => now - seconds * 1000;
const healthy = (namespace: string): ObjectHealthFacts => ({
  namespace,
  ready: 'true',
  lastSuccessAt: ago(10),
  consecutiveFailures: 0,
});

/** Each namespace's values by metric name (and Ready status). */
const aggregateObjectHealth = (facts: ObjectHealthFacts[], at: number, previously?: string[]) =>
  new Map(
    [...aggregateByNamespace(facts, objectHealthGauges, (f) => f.namespace, at, previously)].map(
      ([namespace, row]) => [
        namespace,
        Object.fromEntries(
          objectHealthGauges.map((g, i) => [
            g.labels ? `${g.name}{ready=${String(g.labels.ready)}}` : g.name,
            row[i],
          ]),
        ),
      ],
    ),
  );

describe('the object health gauges, aggregated per namespace', () => {
  it('counts per namespace and keeps the worst age of each kind of trouble', () => {
    const stats = aggregateObjectHealth(
      [
        healthy('a'),
        { ...healthy('a'), ready: 'false', notReadySince: ago(400), consecutiveFailures: 12 },
        { ...healthy('a'), ready: 'unknown', consecutiveFailures: 3, lastSuccessAt: ago(900) },
        { ...healthy('a'), generationUnobservedSince: ago(700), terminatingSince: ago(2000) },
        healthy('b'),
      ],
      now,
    );
    expect(stats.get('a')).toEqual({
      'steward_objects{ready=true}': 2,
      'steward_objects{ready=false}': 1,
      'steward_objects{ready=unknown}': 1,
      steward_objects_longest_not_ready_seconds: 400,
      steward_objects_generation_unobserved: 1,
      steward_objects_longest_generation_unobserved_seconds: 700,
      steward_objects_terminating: 1,
      steward_objects_longest_terminating_seconds: 2000,
      steward_objects_longest_since_success_seconds: 900,
      steward_objects_failing: 2,
      steward_objects_max_consecutive_failures: 12,
    });
    expect(stats.get('b')).toMatchObject({
      'steward_objects{ready=true}': 1,
      'steward_objects{ready=false}': 0,
      'steward_objects{ready=unknown}': 0,
      steward_objects_longest_not_ready_seconds: 0,
      steward_objects_failing: 0,
      steward_objects_longest_since_success_seconds: 10,
    });
  });

  it('reports a namespace that lost its last object with zeros', () => {
    const stats = aggregateObjectHealth([healthy('a')], now, ['a', 'gone']);
    expect(Object.values(stats.get('gone') ?? { missing: 1 })).toEqual(
      objectHealthGauges.map(() => 0),
    );
  });
});

describe('objectHealthMetrics on /metrics', () => {
  let telemetry: Telemetry;
  let server: Server;
  let url: string;
  beforeEach(async () => {
    telemetry = createTelemetry({
      serviceName: 'widget-controller',
      registerGlobal: false,
      log: { level: 'silent' },
    });
    server = createServer(telemetry.metricsHandler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await telemetry.shutdown();
  });
  const scrape = async () =>
    (await (await fetch(url)).text()).split('\n').filter((l) => l.startsWith('steward_objects'));

  it('serves one series per kind, namespace (and Ready status), and zeros once a controller stops', async () => {
    const metrics = objectHealthMetrics(telemetry.meter, () => now);
    let facts: ObjectHealthFacts[] = [
      { ...healthy('shop'), ready: 'false', notReadySince: ago(301), consecutiveFailures: 10 },
      { ...healthy('shop'), terminatingSince: ago(1801) },
    ];
    const stop = metrics.observe('Widget', () => facts);
    const lines = await scrape();
    expect(lines).toContain('steward_objects{kind="Widget",namespace="shop",ready="false"} 1');
    expect(lines).toContain('steward_objects{kind="Widget",namespace="shop",ready="true"} 1');
    expect(lines).toContain('steward_objects{kind="Widget",namespace="shop",ready="unknown"} 0');
    expect(lines).toContain(
      'steward_objects_longest_not_ready_seconds{kind="Widget",namespace="shop"} 301',
    );
    expect(lines).toContain(
      'steward_objects_longest_terminating_seconds{kind="Widget",namespace="shop"} 1801',
    );
    expect(lines).toContain(
      'steward_objects_max_consecutive_failures{kind="Widget",namespace="shop"} 10',
    );
    // 9 families; ready has 3 series: 11 series for one kind in one namespace
    expect(lines.filter((l) => !l.startsWith('#'))).toHaveLength(11);

    facts = [];
    expect(await scrape()).toContain(
      'steward_objects_longest_terminating_seconds{kind="Widget",namespace="shop"} 0',
    );
    facts = [{ ...healthy('shop'), terminatingSince: ago(5000) }];
    stop();
    // the retired source reports zeros, not its last values
    expect(await scrape()).toContain(
      'steward_objects_longest_terminating_seconds{kind="Widget",namespace="shop"} 0',
    );
  });

  it('keeps 10,000 objects in 100 namespaces to 1,100 series: per namespace, never per object', async () => {
    const metrics = objectHealthMetrics(telemetry.meter, () => now);
    const facts: ObjectHealthFacts[] = Array.from({ length: 10_000 }, (_, i) => ({
      ...healthy(`team-${i % 100}`),
      ...(i % 7 === 0 ? { ready: 'false' as const, notReadySince: ago(i % 600) } : {}),
      consecutiveFailures: i % 13,
    }));
    metrics.observe('Widget', () => facts);
    const series = (await scrape()).filter((l) => !l.startsWith('#'));
    expect(series).toHaveLength(100 * 11);
    expect(series).toContain('steward_objects{kind="Widget",namespace="team-0",ready="false"} 15');
  });

  it('serves any kind’s own gauges the same way: sum and max per namespace, an object with no value left out', async () => {
    interface Cluster {
      namespace: string;
      failovers?: number;
      lagBytes?: number;
    }
    let clusters: Cluster[] = [
      { namespace: 'shop', failovers: 2, lagBytes: 100 },
      { namespace: 'shop', failovers: 1 },
      { namespace: 'ops', lagBytes: 7 },
    ];
    const stop = namespaceGauges(telemetry.meter, () => now).observe<Cluster>(
      'Widget',
      [
        {
          name: 'steward_widget_failovers',
          description: 'd',
          aggregate: 'sum',
          value: (c) => c.failovers,
        },
        {
          name: 'steward_widget_max_lag_bytes',
          description: 'd',
          aggregate: 'max',
          value: (c) => c.lagBytes,
        },
      ],
      () => clusters,
      (c) => c.namespace,
    );
    const widgetLines = async () =>
      (await (await fetch(url)).text()).split('\n').filter((l) => l.startsWith('steward_widget'));
    expect(await widgetLines()).toEqual(
      expect.arrayContaining([
        'steward_widget_failovers{kind="Widget",namespace="shop"} 3',
        'steward_widget_failovers{kind="Widget",namespace="ops"} 0',
        'steward_widget_max_lag_bytes{kind="Widget",namespace="shop"} 100',
        'steward_widget_max_lag_bytes{kind="Widget",namespace="ops"} 7',
      ]),
    );
    clusters = [{ namespace: 'shop', failovers: 5, lagBytes: 1 }];
    stop();
    const afterStop = await widgetLines();
    expect(afterStop).toContain('steward_widget_failovers{kind="Widget",namespace="shop"} 0');
    expect(afterStop).toContain('steward_widget_max_lag_bytes{kind="Widget",namespace="ops"} 0');
    // and nothing new once retired: the source is no longer read
    expect(await widgetLines()).not.toContain(
      'steward_widget_failovers{kind="Widget",namespace="shop"} 5',
    );
  });
});
