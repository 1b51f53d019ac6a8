// The Grafana dashboard every controller chart ships (charts/<chart>/dashboards/<chart>.json):
// leadership, reconciliation, work queues and Kubernetes API calls under controller-runtime's
// metric names, which every Steward controller serves. What a controller adds — the system it
// calls besides the Kubernetes API, rows of its own, tags — comes from its file under
// tools/charts/controllers/ as `DashboardAdditions`.
import {
  dashboard,
  datasourceVariable,
  queryVariable,
  stat,
  timeseries,
  type Dashboard,
  type PanelSpec,
  type RowSpec,
} from './grafana.js';
import {
  equals,
  histogramQuantile,
  labelValues,
  legend,
  matches,
  maxBy,
  Metric,
  rate,
  series,
  sum,
  type Matcher,
} from './promql.js';

/** The controller a dashboard is for. */
export interface DashboardController {
  /** The chart's name, e.g. `kafka-topic-controller`; the dashboard's uid is `steward-<chart>`. */
  chart: string;
  /**
   * The kind it reconciles, e.g. `KafkaTopic`. Its controller is named after it in lower case
   * (`kafkatopic`), as the domain libs name theirs (`.named('kafkatopic')`).
   */
  kind: string;
  /** The providers whose ProviderProfiles the process's ProviderProfile controller manages. */
  providers: readonly string[];
}

/** The system a controller calls besides the Kubernetes API, and the panels that show the calls. */
export interface ExternalSystem {
  /** As in the description's "Kubernetes API and <calls> calls", e.g. `Kafka admin API`. */
  calls: string;
  /** As in the row title "Kubernetes API and <row>", e.g. `Kafka`. */
  row: string;
  /** After "Kubernetes API requests", in that row. */
  panels: readonly PanelSpec[];
}

/** What one controller's dashboard has besides the common one. */
export interface DashboardAdditions {
  /** After the common tags (`steward`, `kubernetes`, `operator`). */
  tags?: readonly string[];
  external?: ExternalSystem;
  /** Rows of the controller's own, after the common ones. */
  rows?: readonly RowSpec[];
}

/** The common tags, before a controller's own. */
export const commonTags = ['steward', 'kubernetes', 'operator'] as const;

/** The name the ProviderProfile controller reconciles under, in every controller process. */
export const providerProfileController = 'providerprofile';

/** Every series of the selected pods. */
const process: readonly Matcher[] = [matches('namespace', '$namespace'), matches('job', '$job')];

/** Every series of the selected pods' selected controllers. */
const selectedControllers: readonly Matcher[] = [...process, matches('controller', '$controller')];

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** `p50` for 0.5. */
const percentile = (q: number) => `p${Math.round(q * 100)}`;

/** The controller's own name, as in the `controller` label. */
export function controllerName(kind: string): string {
  return kind.toLowerCase();
}

function variables(controller: DashboardController) {
  const own = controllerName(controller.kind);
  const inProcess = [own, providerProfileController].join('|');
  const profiles = controller.providers.length ? `${listed(controller.providers)} ` : '';
  const reconciles = (matchers: readonly Matcher[]) => series(Metric.reconcileTotal, matchers);
  return [
    datasourceVariable(),
    queryVariable({
      name: 'namespace',
      label: 'Namespace',
      query: labelValues(reconciles([]), 'namespace'),
    }),
    queryVariable({
      name: 'job',
      label: 'Job',
      query: labelValues(reconciles([matches('namespace', '$namespace')]), 'job'),
    }),
    // Only the controllers of this process, even where several Steward controllers share a
    // namespace and job; the chart's own controller is selected when the dashboard opens.
    queryVariable({
      name: 'controller',
      label: 'Controller',
      query: labelValues(reconciles([...process, matches('controller', inProcess)]), 'controller'),
      allValue: inProcess,
      selected: [own],
      description:
        `${own}: the ${controller.kind} controller; ${providerProfileController}: the ` +
        `${profiles}ProviderProfile controller in the same process.`,
    }),
  ];
}

const overview: RowSpec = {
  title: 'Overview',
  panels: [
    stat({
      title: 'Leader',
      description: `${Metric.leaderElectionMasterStatus}: 1 on the pod that holds the Lease, 0 on standbys.`,
      unit: 'none',
      instant: true,
      valueText: { 0: { text: 'standby', color: 'blue' }, 1: { text: 'leader', color: 'green' } },
      query: {
        expr: maxBy(['pod'], series(Metric.leaderElectionMasterStatus, process)),
        legend: legend(['pod']),
      },
    }),
    stat({
      title: 'Reconciles / s',
      description: 'All reconciles of the selected controllers, every result.',
      unit: 'reqps',
      query: { expr: sum(rate(series(Metric.reconcileTotal, selectedControllers))) },
    }),
    stat({
      title: 'Reconcile errors / s',
      description: `${Metric.reconcileErrorsTotal}: reconciles that returned an error and will be retried with backoff (terminal errors included).`,
      unit: 'reqps',
      thresholds: [
        { color: 'orange', value: 0.01 },
        { color: 'red', value: 1 },
      ],
      query: { expr: sum(rate(series(Metric.reconcileErrorsTotal, selectedControllers))) },
    }),
    stat({
      title: 'Work queue depth',
      description: 'Items waiting in the work queues of the selected controllers.',
      unit: 'none',
      thresholds: [
        { color: 'orange', value: 50 },
        { color: 'red', value: 500 },
      ],
      query: { expr: sum(series(Metric.workqueueDepth, selectedControllers)) },
    }),
  ],
};

/**
 * The series of the selected pods' objects. Not by `$namespace`: on Steward's per-object health
 * metrics `namespace` is the objects' own (the ServiceMonitor honours it), not the pod's.
 */
export const objectsOfJob: readonly Matcher[] = [matches('job', '$job')];

const objects: RowSpec = {
  title: 'Objects',
  panels: [
    timeseries({
      title: 'Objects by Ready condition',
      description: `${Metric.objects}: the objects of each kind the controller reconciles, by their Ready condition (true, false, unknown: no condition yet).`,
      unit: 'short',
      stacked: true,
      queries: [
        {
          expr: sum(series(Metric.objects, objectsOfJob), ['kind', 'ready']),
          legend: legend(['kind', 'ready']),
        },
      ],
    }),
    timeseries({
      title: 'Desired vs observed generation',
      description: `Objects whose spec changed (metadata.generation) but whose status has not yet observed it (status.observedGeneration), those Terminating, and those whose last reconcile failed.`,
      unit: 'short',
      queries: [
        {
          expr: sum(series(Metric.objectsGenerationUnobserved, objectsOfJob), ['kind']),
          legend: `${legend(['kind'])} generation not observed`,
        },
        {
          expr: sum(series(Metric.objectsTerminating, objectsOfJob), ['kind']),
          legend: `${legend(['kind'])} Terminating`,
        },
        {
          expr: sum(series(Metric.objectsFailing, objectsOfJob), ['kind']),
          legend: `${legend(['kind'])} failing`,
        },
      ],
    }),
    timeseries({
      title: 'Last reconcile and longest waits',
      description: `The worst object of each kind: time since its last successful reconcile, how long it has not been Ready, how long its newest generation has waited, how long it has been Terminating.`,
      unit: 's',
      queries: [
        {
          expr: maxBy(['kind'], series(Metric.objectsLongestSinceSuccessSeconds, objectsOfJob)),
          legend: `${legend(['kind'])} since last successful reconcile`,
        },
        {
          expr: maxBy(['kind'], series(Metric.objectsLongestNotReadySeconds, objectsOfJob)),
          legend: `${legend(['kind'])} not Ready`,
        },
        {
          expr: maxBy(
            ['kind'],
            series(Metric.objectsLongestGenerationUnobservedSeconds, objectsOfJob),
          ),
          legend: `${legend(['kind'])} generation unobserved`,
        },
        {
          expr: maxBy(['kind'], series(Metric.objectsLongestTerminatingSeconds, objectsOfJob)),
          legend: `${legend(['kind'])} Terminating`,
        },
      ],
    }),
    timeseries({
      title: 'Longest failure streak',
      description: `${Metric.objectsMaxConsecutiveFailures}: the most reconciles in a row one object of the kind has failed (0 after a success; 10 alerts).`,
      unit: 'short',
      queries: [
        {
          expr: maxBy(['kind'], series(Metric.objectsMaxConsecutiveFailures, objectsOfJob)),
          legend: legend(['kind']),
        },
      ],
    }),
  ],
};

/**
 * The failovers of a workload kind (CacheCluster, PostgresCluster), from the failover gauges its
 * controller computes from the objects' status (`failoverGauges` in @steward/workload), per
 * namespace of the objects.
 */
export function failoverRow(what: { kind: string; lossUnit: string }): RowSpec {
  const own = [...objectsOfJob, equals('kind', what.kind)];
  const byNamespace = ['namespace'];
  return {
    title: 'Failovers',
    panels: [
      timeseries({
        title: 'Failovers recorded',
        description: `${Metric.failovers}: status.failoverCount summed over the ${what.kind}s of each namespace — a step up at every failover. ${Metric.failoversInProgress}: failovers not yet completed (promoting, repointing).`,
        unit: 'short',
        queries: [
          {
            expr: sum(series(Metric.failovers, own), byNamespace),
            legend: `${legend(byNamespace)} failovers`,
          },
          {
            expr: sum(series(Metric.failoversInProgress, own), byNamespace),
            legend: `${legend(byNamespace)} in progress`,
          },
        ],
      }),
      timeseries({
        title: 'What the newest failovers may have lost',
        description: `${Metric.failoverPossibleLossBytes}: the largest upper bound on lost writes published by the newest failover of each ${what.kind} (${what.lossUnit}; 0: nothing lost). ${Metric.failoverLossUnknown}: ${what.kind}s whose newest failover could not bound it (the old primary was never seen) — read status.failover.`,
        unit: 'bytes',
        queries: [
          {
            expr: maxBy(byNamespace, series(Metric.failoverPossibleLossBytes, own)),
            legend: `${legend(byNamespace)} possible loss`,
          },
        ],
      }),
      stat({
        title: 'Newest failovers with an unknown loss',
        description: `${Metric.failoverLossUnknown}: ${what.kind}s whose newest failover could not bound what it lost.`,
        unit: 'none',
        instant: true,
        thresholds: [{ color: 'orange', value: 1 }],
        query: { expr: sum(series(Metric.failoverLossUnknown, own)) },
      }),
    ],
  };
}

const reconciliation: RowSpec = {
  title: 'Reconciliation',
  panels: [
    timeseries({
      title: 'Reconciles by result',
      description: `${Metric.reconcileTotal} by controller and result (success, requeue, requeue_after, error).`,
      unit: 'reqps',
      stacked: true,
      queries: [
        {
          expr: sum(rate(series(Metric.reconcileTotal, selectedControllers)), [
            'controller',
            'result',
          ]),
          legend: legend(['controller', 'result']),
        },
      ],
    }),
    timeseries({
      title: 'Reconcile errors',
      description:
        'Errors are retried with backoff; terminal errors need the user to change something and are not retried.',
      unit: 'reqps',
      queries: [
        {
          expr: sum(rate(series(Metric.reconcileErrorsTotal, selectedControllers)), ['controller']),
          legend: `${legend(['controller'])} errors`,
        },
        {
          expr: sum(rate(series(Metric.terminalReconcileErrorsTotal, selectedControllers)), [
            'controller',
          ]),
          legend: `${legend(['controller'])} terminal`,
        },
      ],
    }),
    timeseries({
      title: 'Reconcile duration',
      description: `Quantiles of ${Metric.reconcileTimeSeconds}.`,
      unit: 's',
      queries: [0.5, 0.9, 0.99].map((q) => ({
        expr: histogramQuantile(q, Metric.reconcileTimeSeconds, selectedControllers, [
          'controller',
        ]),
        legend: `${legend(['controller'])} ${percentile(q)}`,
      })),
    }),
  ],
};

const workQueue: RowSpec = {
  title: 'Work queue',
  panels: [
    timeseries({
      title: 'Depth',
      description: `${Metric.workqueueDepth}: items waiting to be reconciled.`,
      unit: 'short',
      queries: [
        {
          expr: sum(series(Metric.workqueueDepth, selectedControllers), ['controller', 'name']),
          legend: legend(['name']),
        },
      ],
    }),
    timeseries({
      title: 'Adds and retries',
      description: `${Metric.workqueueAddsTotal} and ${Metric.workqueueRetriesTotal} (rate-limited re-adds after errors).`,
      unit: 'ops',
      queries: [
        {
          expr: sum(rate(series(Metric.workqueueAddsTotal, selectedControllers)), ['name']),
          legend: `${legend(['name'])} adds`,
        },
        {
          expr: sum(rate(series(Metric.workqueueRetriesTotal, selectedControllers)), ['name']),
          legend: `${legend(['name'])} retries`,
        },
      ],
    }),
    timeseries({
      title: 'Time in queue',
      description: `Quantiles of ${Metric.workqueueQueueDurationSeconds}: how long an item waits before a worker takes it.`,
      unit: 's',
      queries: [0.5, 0.99].map((q) => ({
        expr: histogramQuantile(q, Metric.workqueueQueueDurationSeconds, selectedControllers, [
          'name',
        ]),
        legend: `${legend(['name'])} ${percentile(q)}`,
      })),
    }),
  ],
};

const kubernetesApiRequests = timeseries({
  title: 'Kubernetes API requests',
  description: `${Metric.restClientRequestsTotal} by HTTP method and status code.`,
  unit: 'reqps',
  queries: [
    {
      expr: sum(rate(series(Metric.restClientRequestsTotal, process)), ['method', 'code']),
      legend: legend(['method', 'code']),
    },
  ],
});

export interface ExternalRequestsOptions {
  /** Calls by `by` labels and result's rate. */
  requests: { title: string; description: string; by: readonly string[] };
  /** The share of calls with `result="error"`, by `by` labels. */
  errorRatio: { title: string; description: string; by: readonly string[] };
  /** Narrows `steward_external_requests_total` to this controller's calls, e.g. its provider. */
  matchers?: readonly Matcher[];
}

/** Two panels over `steward_external_requests_total`: the calls, and the share that failed. */
export function externalRequestPanels(options: ExternalRequestsOptions): PanelSpec[] {
  const calls = [...process, ...(options.matchers ?? [])];
  const failed = [...calls, equals('result', 'error')];
  const { requests, errorRatio } = options;
  return [
    timeseries({
      title: requests.title,
      description: requests.description,
      unit: 'reqps',
      queries: [
        {
          expr: sum(rate(series(Metric.externalRequestsTotal, calls)), requests.by),
          legend: legend(requests.by),
        },
      ],
    }),
    timeseries({
      title: errorRatio.title,
      description: errorRatio.description,
      unit: 'percentunit',
      queries: [
        {
          expr:
            `${sum(rate(series(Metric.externalRequestsTotal, failed)), errorRatio.by)} / ` +
            sum(rate(series(Metric.externalRequestsTotal, calls)), errorRatio.by),
          legend: legend(errorRatio.by),
        },
      ],
    }),
  ];
}

/**
 * The dashboard of `controller`: the common rows, then `additions`. `marker` ends the
 * description (it says the file is generated).
 */
export function controllerDashboard(
  controller: DashboardController,
  additions: DashboardAdditions,
  marker: string,
): Dashboard {
  const { external } = additions;
  const calls = external
    ? `, Kubernetes API and ${external.calls} calls`
    : ' and Kubernetes API calls';
  return dashboard({
    uid: `steward-${controller.chart}`,
    title: `Steward / ${controller.kind} controller`,
    description: `Reconciliation, work queues${calls} of Steward's ${controller.kind} controller (controller-runtime metric names). ${marker}`,
    tags: [...commonTags, ...(additions.tags ?? [])],
    variables: variables(controller),
    rows: [
      overview,
      objects,
      reconciliation,
      workQueue,
      {
        title: external ? `Kubernetes API and ${external.row}` : 'Kubernetes API',
        panels: [kubernetesApiRequests, ...(external?.panels ?? [])],
      },
      ...(additions.rows ?? []),
    ],
  });
}
