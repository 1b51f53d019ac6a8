import { type KubeObject } from '@steward/kube';
import { type WorkloadRefusal } from './workload-reconciler.js';

/**
 * Why a profile's guardrails hold a `Delete` deletion (`allowedDeletionPolicies` without `Delete`),
 * or undefined: reason `DeletionPolicyNotAllowed`, a message naming the profile, what stays
 * (`kept`, e.g. "its volumes and Secrets") and the two ways out.
 */
export function deletionGuardrailRefusal(
  kind: string,
  profileName: string | undefined,
  allowedDeletionPolicies: readonly string[] | undefined,
  kept: string,
): WorkloadRefusal | undefined {
  if (!allowedDeletionPolicies || allowedDeletionPolicies.includes('Delete')) return undefined;
  return {
    reason: 'DeletionPolicyNotAllowed',
    message: `spec.deletionPolicy Delete is not allowed by ProviderProfile ${profileName ?? ''} (allowed: ${allowedDeletionPolicies.join(', ')}). The ${kind} is being deleted, but ${kept} are not deleted and the finalizer stays until this is resolved (or spec.deletionPolicy is set to Retain)`,
  };
}

/**
 * The names of the claims in `claims` (a cache's list) that carry `label: name` in the object's
 * namespace, sorted: the volumes of the object's pods.
 */
export function claimNamesOf(
  claims: readonly KubeObject[],
  obj: KubeObject,
  label: string,
): string[] {
  const namespace = obj.metadata.namespace;
  const name = obj.metadata.name;
  return claims
    .filter((c) => c.metadata.namespace === namespace && c.metadata.labels?.[label] === name)
    .map((c) => c.metadata.name!)
    .sort();
}
