import Type, { type TSchema, type TUnsafe } from 'typebox';

/** A string limited to `values`: `{ type: string, enum: [...] }` (CRD schemas have no `const`/`anyOf` of literals). */
export function StringEnum<const V extends readonly string[]>(
  values: V,
  options: Record<string, unknown> = {},
): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
}

/** A CEL rule as the API server evaluates it (`x-kubernetes-validations`). */
export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?:
    'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  /** Transition rules (using `oldSelf`) run on updates only; say so for readers. */
  optionalOldSelf?: boolean;
}

/** Adds CEL validations to a schema (returns a new schema). */
export function withValidations<S extends TSchema>(schema: S, rules: CelRule[]): S {
  const existing =
    ((schema as Record<string, unknown>)['x-kubernetes-validations'] as CelRule[] | undefined) ??
    [];
  return { ...schema, 'x-kubernetes-validations': [...existing, ...rules] };
}

/** The transition rule that makes a field immutable once set. */
export function immutable(message: string): CelRule {
  return { rule: 'self == oldSelf', message };
}

/** A string map (`additionalProperties: { type: string }`), e.g. labels or config. */
export function StringMap(options: Record<string, unknown> = {}): TUnsafe<Record<string, string>> {
  return Type.Unsafe<Record<string, string>>({
    type: 'object',
    additionalProperties: { type: 'string' },
    ...options,
  });
}

/** `metav1.Condition` as CRDs declare it under `status.conditions` (a list map keyed by type). */
export const ConditionsSchema = Type.Unsafe<
  {
    type: string;
    status: 'True' | 'False' | 'Unknown';
    reason: string;
    message: string;
    lastTransitionTime: string;
    observedGeneration?: number;
  }[]
>({
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
    properties: {
      type: { type: 'string', maxLength: 316 },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      reason: { type: 'string', maxLength: 1024 },
      message: { type: 'string', maxLength: 32768 },
      lastTransitionTime: { type: 'string', format: 'date-time' },
      observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    },
  },
});
