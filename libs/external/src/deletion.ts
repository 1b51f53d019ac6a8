import { type KubeObject } from '@steward/kube';
import { ExternalAnnotations as A } from './annotations.js';
import { ledgerState } from './ledger.js';

/**
 * Whether deleting `obj` would act at its provider — the managed reconciler's rule, for kinds'
 * admissions that must hold a deletion back (no profile, a guardrail) only when it would: only
 * with `deletionPolicy: Delete`, for a resource this object created (any ledger entry) or adopted.
 */
export function deletionActsAtProvider(
  obj: KubeObject & { spec: { deletionPolicy?: 'Retain' | 'Delete'; adopt?: boolean } },
): boolean {
  const annotations = obj.metadata.annotations;
  if ((obj.spec.deletionPolicy ?? 'Retain') !== 'Delete') return false;
  if (!annotations?.[A.externalName]) return false;
  return ledgerState(annotations) !== 'none' || obj.spec.adopt === true;
}
