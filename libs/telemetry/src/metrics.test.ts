import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  controllerMetrics,
  createTelemetry,
  externalMetrics,
  leaderElectionMetrics,
  PROMETHEUS_TEXT_CONTENT_TYPE,
  readinessMetrics,
  restClientMetrics,
  type Telemetry,
  workqueueMetricsProvider,
} from './index.js';

/** A real HTTP server on loopback serving `handler` at any path, as the manager mounts it. */
async function serve(telemetry: Telemetry): Promise<{ url: string; server: Server }> {
  const server = createServer(telemetry.metricsHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/metrics`, server };
}

async function scrape(url: string): Promise<string[]> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return (await response.text()).split('\n');
}

/** The `# TYPE` of every metric family in a scrape, by name. */
function families(lines: string[]): Record<string, string> {
  return Object.fromEntries(
    lines
      .filter((line) => line.startsWith('# TYPE '))
      .map((line) => line.slice('# TYPE '.length).split(' ') as [string, string]),
  );
}

describe('GET /metrics', () => {
  let telemetry: Telemetry;
  let url: string;
  let server: Server;

  beforeEach(async () => {
    telemetry = createTelemetry({
      serviceName: 'widget-controller',
      registerGlobal: false,
      log: { level: 'silent' },
    });
    ({ url, server } = await serve(telemetry));
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await telemetry.shutdown();
  });

  describe('after a known workload of controller "widget"', () => {
    let lines: string[];

    beforeEach(async () => {
      const controller = controllerMetrics(telemetry.meter);
      controller.controllerStarted('widget', 2);
      // Durations are exact in binary, so the sum is exact: 0.25+0.5+0.125+2+0.0625+0.0625 = 3.
      controller.reconcileFinished('widget', 'success', 0.25);
      controller.reconcileFinished('widget', 'success', 0.5);
      controller.reconcileFinished('widget', 'success', 0.125);
      controller.reconcileFinished('widget', 'error', 2);
      controller.reconcileFinished('widget', 'requeue_after', 0.0625);
      controller.reconcileFinished('widget', 'requeue_after', 0.0625);
      controller.setActiveWorkers('widget', 1);

      const queue = workqueueMetricsProvider(telemetry.meter, 'widget');
      const depth = queue.newDepthMetric('widget');
      const adds = queue.newAddsMetric('widget');
      const latency = queue.newLatencyMetric('widget');
      const work = queue.newWorkDurationMetric('widget');
      const unfinished = queue.newUnfinishedWorkSecondsMetric('widget');
      const longest = queue.newLongestRunningProcessorSecondsMetric('widget');
      const retries = queue.newRetriesMetric('widget');
      for (let i = 0; i < 6; i++) adds.inc();
      depth.inc();
      depth.inc();
      depth.inc();
      depth.dec();
      depth.dec();
      latency.observe(0.5);
      latency.observe(0.00005);
      work.observe(0.25);
      retries.inc();
      retries.inc();
      unfinished.set(1.5);
      longest.set(0.75);

      restClientMetrics(telemetry.meter).request('GET', 200, '10.0.0.1:6443');
      restClientMetrics(telemetry.meter).request('patch', 409, '10.0.0.1:6443');
      leaderElectionMetrics(telemetry.meter).setMaster('widget-controller-lock', true);
      const external = externalMetrics(telemetry.meter);
      external.request('aws', 'CreateDBInstance', 'success');
      external.request('aws', 'DescribeDBInstances', 'error');
      const readiness = readinessMetrics(telemetry.meter);
      readiness.setReady('Widget', 4);
      readiness.becameReady('Widget', 42);

      lines = await scrape(url);
    });

    it('exports every metric family under its controller-runtime name and type', () => {
      expect(families(lines)).toEqual({
        controller_runtime_reconcile_total: 'counter',
        controller_runtime_reconcile_errors_total: 'counter',
        controller_runtime_terminal_reconcile_errors_total: 'counter',
        controller_runtime_reconcile_time_seconds: 'histogram',
        controller_runtime_max_concurrent_reconciles: 'gauge',
        controller_runtime_active_workers: 'gauge',
        workqueue_depth: 'gauge',
        workqueue_adds_total: 'counter',
        workqueue_queue_duration_seconds: 'histogram',
        workqueue_work_duration_seconds: 'histogram',
        workqueue_unfinished_work_seconds: 'gauge',
        workqueue_longest_running_processor_seconds: 'gauge',
        workqueue_retries_total: 'counter',
        rest_client_requests_total: 'counter',
        leader_election_master_status: 'gauge',
        steward_external_requests_total: 'counter',
        steward_resource_ready: 'gauge',
        steward_time_to_ready_seconds: 'histogram',
      });
    });

    it('counts reconciles by result, with never-seen results published at 0', () => {
      expect(lines).toEqual(
        expect.arrayContaining([
          'controller_runtime_reconcile_total{controller="widget",result="success"} 3',
          'controller_runtime_reconcile_total{controller="widget",result="error"} 1',
          'controller_runtime_reconcile_total{controller="widget",result="requeue_after"} 2',
          'controller_runtime_reconcile_total{controller="widget",result="requeue"} 0',
          'controller_runtime_reconcile_errors_total{controller="widget"} 1',
          'controller_runtime_terminal_reconcile_errors_total{controller="widget"} 0',
          'controller_runtime_max_concurrent_reconciles{controller="widget"} 2',
          'controller_runtime_active_workers{controller="widget"} 1',
        ]),
      );
    });

    it('buckets reconcile time in controller-runtime buckets, cumulatively, with count and sum', () => {
      const histogram = lines.filter((line) =>
        line.startsWith('controller_runtime_reconcile_time_seconds_'),
      );
      const cumulative: [string, number][] = [
        ['0.005', 0],
        ['0.01', 0],
        ['0.025', 0],
        ['0.05', 0],
        ['0.1', 2],
        ['0.15', 3],
        ['0.2', 3],
        ['0.25', 4],
        ['0.3', 4],
        ['0.35', 4],
        ['0.4', 4],
        ['0.45', 4],
        ['0.5', 5],
        ['0.6', 5],
        ['0.7', 5],
        ['0.8', 5],
        ['0.9', 5],
        ['1', 5],
        ['1.25', 5],
        ['1.5', 5],
        ['1.75', 5],
        ['2', 6],
        ['2.5', 6],
        ['3', 6],
        ['3.5', 6],
        ['4', 6],
        ['4.5', 6],
        ['5', 6],
        ['6', 6],
        ['7', 6],
        ['8', 6],
        ['9', 6],
        ['10', 6],
        ['15', 6],
        ['20', 6],
        ['25', 6],
        ['30', 6],
        ['40', 6],
        ['50', 6],
        ['60', 6],
        ['+Inf', 6],
      ];
      expect(histogram).toEqual([
        'controller_runtime_reconcile_time_seconds_count{controller="widget"} 6',
        'controller_runtime_reconcile_time_seconds_sum{controller="widget"} 3',
        ...cumulative.map(
          ([le, count]) =>
            `controller_runtime_reconcile_time_seconds_bucket{controller="widget",le="${le}"} ${count}`,
        ),
      ]);
    });

    it('exports workqueue metrics labelled with queue name and controller', () => {
      expect(lines).toEqual(
        expect.arrayContaining([
          'workqueue_depth{controller="widget",name="widget"} 1',
          'workqueue_adds_total{controller="widget",name="widget"} 6',
          'workqueue_retries_total{controller="widget",name="widget"} 2',
          'workqueue_unfinished_work_seconds{controller="widget",name="widget"} 1.5',
          'workqueue_longest_running_processor_seconds{controller="widget",name="widget"} 0.75',
          'workqueue_queue_duration_seconds_count{controller="widget",name="widget"} 2',
          'workqueue_queue_duration_seconds_sum{controller="widget",name="widget"} 0.50005',
          'workqueue_work_duration_seconds_count{controller="widget",name="widget"} 1',
          'workqueue_work_duration_seconds_sum{controller="widget",name="widget"} 0.25',
        ]),
      );
    });

    it("buckets workqueue durations at client-go's ExponentialBuckets(10e-9, 10, 12)", () => {
      const buckets = lines
        .filter((line) => line.startsWith('workqueue_queue_duration_seconds_bucket{'))
        .map((line) => {
          const [, le, count] = /le="([^"]+)"} (\d+)$/.exec(line) ?? [];
          return [le === '+Inf' ? Infinity : Number(le), Number(count)];
        });
      // The values Go computes (and prints as 1e-08, …, 9.999999999999999e-06, …).
      expect(buckets).toEqual([
        [1e-8, 0],
        [1e-7, 0],
        [1e-6, 0],
        [9.999999999999999e-6, 0],
        [9.999999999999999e-5, 1],
        [0.001, 1],
        [0.01, 1],
        [0.1, 1],
        [1, 2],
        [10, 2],
        [100, 2],
        [1000, 2],
        [Infinity, 2],
      ]);
    });

    it('exports REST client, leader election, external and readiness metrics', () => {
      expect(lines).toEqual(
        expect.arrayContaining([
          'rest_client_requests_total{code="200",host="10.0.0.1:6443",method="GET"} 1',
          'rest_client_requests_total{code="409",host="10.0.0.1:6443",method="PATCH"} 1',
          'leader_election_master_status{name="widget-controller-lock"} 1',
          'steward_external_requests_total{operation="CreateDBInstance",provider="aws",result="success"} 1',
          'steward_external_requests_total{operation="DescribeDBInstances",provider="aws",result="error"} 1',
          'steward_resource_ready{kind="Widget"} 4',
          'steward_time_to_ready_seconds_count{kind="Widget"} 1',
          'steward_time_to_ready_seconds_sum{kind="Widget"} 42',
          'steward_time_to_ready_seconds_bucket{kind="Widget",le="30"} 0',
          'steward_time_to_ready_seconds_bucket{kind="Widget",le="60"} 1',
        ]),
      );
    });

    it('adds no OTel scope labels and no target_info family', () => {
      expect(lines.filter((line) => line.includes('otel_scope'))).toEqual([]);
      expect(lines.filter((line) => line.includes('target_info'))).toEqual([]);
    });
  });

  it('serves the Prometheus text content type', async () => {
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toBe(PROMETHEUS_TEXT_CONTENT_TYPE);
  });

  it('answers HEAD without a body and refuses other methods with 405', async () => {
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(url, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers 503 once telemetry is shut down', async () => {
    await telemetry.shutdown();
    expect((await fetch(url)).status).toBe(503);
  });

  it('publishes a queue series at 0 as soon as the queue exists, before any item moves', async () => {
    const queue = workqueueMetricsProvider(telemetry.meter, 'gadget');
    queue.newDepthMetric('gadget');
    queue.newAddsMetric('gadget');
    queue.newRetriesMetric('gadget');
    queue.newUnfinishedWorkSecondsMetric('gadget');
    queue.newLongestRunningProcessorSecondsMetric('gadget');
    expect(await scrape(url)).toEqual(
      expect.arrayContaining([
        'workqueue_depth{controller="gadget",name="gadget"} 0',
        'workqueue_adds_total{controller="gadget",name="gadget"} 0',
        'workqueue_retries_total{controller="gadget",name="gadget"} 0',
        'workqueue_unfinished_work_seconds{controller="gadget",name="gadget"} 0',
        'workqueue_longest_running_processor_seconds{controller="gadget",name="gadget"} 0',
      ]),
    );
  });

  it('puts the series of several controllers in one metric family', async () => {
    workqueueMetricsProvider(telemetry.meter, 'widget').newAddsMetric('widget').inc();
    workqueueMetricsProvider(telemetry.meter, 'gadget').newAddsMetric('gadget').inc();
    controllerMetrics(telemetry.meter).controllerStarted('widget', 1);
    controllerMetrics(telemetry.meter).controllerStarted('gadget', 3);
    const lines = await scrape(url);
    expect(lines.filter((line) => line === '# TYPE workqueue_adds_total counter')).toHaveLength(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        'workqueue_adds_total{controller="widget",name="widget"} 1',
        'workqueue_adds_total{controller="gadget",name="gadget"} 1',
        'controller_runtime_max_concurrent_reconciles{controller="widget"} 1',
        'controller_runtime_max_concurrent_reconciles{controller="gadget"} 3',
      ]),
    );
  });

  it('counts a terminal error as an error and as a terminal error', async () => {
    const controller = controllerMetrics(telemetry.meter);
    controller.reconcileFinished('widget', 'error', 0.1, { terminal: true });
    expect(await scrape(url)).toEqual(
      expect.arrayContaining([
        'controller_runtime_reconcile_total{controller="widget",result="error"} 1',
        'controller_runtime_reconcile_errors_total{controller="widget"} 1',
        'controller_runtime_terminal_reconcile_errors_total{controller="widget"} 1',
      ]),
    );
  });

  it('reports a standby replica as 0 and the gauge follows leadership changes', async () => {
    const leader = leaderElectionMetrics(telemetry.meter);
    leader.setMaster('lock', false);
    expect(await scrape(url)).toContain('leader_election_master_status{name="lock"} 0');
    leader.setMaster('lock', true);
    expect(await scrape(url)).toContain('leader_election_master_status{name="lock"} 1');
    leader.setMaster('lock', false);
    expect(await scrape(url)).toContain('leader_election_master_status{name="lock"} 0');
  });

  it('reads an observed ready count at every scrape, until it is unregistered', async () => {
    const readiness = readinessMetrics(telemetry.meter);
    let ready = 1;
    let calls = 0;
    const stop = readiness.observeReady('Gadget', () => (calls++, ready));
    expect(await scrape(url)).toContain('steward_resource_ready{kind="Gadget"} 1');
    ready = 3;
    expect(await scrape(url)).toContain('steward_resource_ready{kind="Gadget"} 3');
    stop();
    ready = 5;
    const before = calls;
    expect(await scrape(url)).not.toContain('steward_resource_ready{kind="Gadget"} 5');
    expect(calls).toBe(before);
  });
});
