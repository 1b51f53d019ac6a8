import { hostname } from 'node:os';
import { type Attributes } from '@opentelemetry/api';
import {
  type Resource,
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

/** What identifies the process in every exported span and metric. */
export interface ResourceOptions {
  /** `service.name`, e.g. `postgres-cluster-controller`. */
  readonly serviceName: string;
  /** `service.version`, when known. */
  readonly serviceVersion?: string;
  /** More resource attributes, e.g. `k8s.pod.name` from the Downward API. */
  readonly resourceAttributes?: Attributes;
}

/**
 * The OTel resource: the SDK's `telemetry.sdk.*`, then `service.name`, `service.version`,
 * `service.namespace` = `steward` and `service.instance.id` = the host name (the pod's name in
 * Kubernetes), then `resourceAttributes`, then `OTEL_RESOURCE_ATTRIBUTES` / `OTEL_SERVICE_NAME`,
 * each overriding the ones before, so operators can relabel a deployment without a rebuild.
 */
export function stewardResource(options: ResourceOptions): Resource {
  return defaultResource()
    .merge(
      resourceFromAttributes({
        [ATTR_SERVICE_NAME]: options.serviceName,
        ...(options.serviceVersion ? { [ATTR_SERVICE_VERSION]: options.serviceVersion } : {}),
        'service.namespace': 'steward',
        'service.instance.id': hostname(),
        ...options.resourceAttributes,
      }),
    )
    .merge(detectResources({ detectors: [envDetector] }));
}
