import { renderConfigMap } from './config-map.js';
import { renderPolicies } from './policies.js';
import { type ChildObject, type RenderInput } from './render-input.js';
import { renderAppSecret, renderReplicationSecret, renderSuperuserSecret } from './secrets.js';
import { renderServices } from './services.js';
import { renderStatefulSet } from './stateful-set.js';

/** Everything a PostgresCluster runs on, as apply configurations (the Secrets as generators). */
export interface RenderedChildren {
  statefulSet: ChildObject;
  headless: ChildObject;
  readWrite: ChildObject;
  readOnly: ChildObject;
  any: ChildObject;
  configMap: ChildObject;
  podDisruptionBudget: ChildObject;
  /** With more than one instance: the primary's budget. */
  primaryDisruptionBudget?: ChildObject;
  networkPolicy: ChildObject;
  /** Generated once: the caller applies them only when missing (a password never changes). */
  superuserSecret: (password: string) => ChildObject;
  appSecret: (password: string) => ChildObject;
  replicationSecret: (password: string) => ChildObject;
}

/** Every child of a PostgresCluster (pure: the same input renders the same objects). */
export function renderChildren(input: RenderInput): RenderedChildren {
  return {
    statefulSet: renderStatefulSet(input),
    ...renderServices(input),
    configMap: renderConfigMap(input),
    ...renderPolicies(input),
    superuserSecret: (password) => renderSuperuserSecret(input, password),
    appSecret: (password) => renderAppSecret(input, password),
    replicationSecret: (password) => renderReplicationSecret(input, password),
  };
}

export * from './config.js';
export * from './conninfo.js';
export * from './instance-script.js';
export * from './names.js';
export * from './render-input.js';
export { bootstrapOf } from './secrets.js';
export { InstanceContainerName, InstructionFile, ServerGid, ServerUid } from './stateful-set.js';
