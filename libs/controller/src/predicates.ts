/** An object as predicates see it. */
export interface Meta {
  metadata?: {
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: unknown;
    finalizers?: string[];
  };
}

/**
 * Filters events before they enqueue a key (controller-runtime's `predicate.Funcs`). A missing
 * method lets the event through.
 */
export interface Predicate<T = Meta> {
  create?(obj: T): boolean;
  update?(old: T, obj: T): boolean;
  delete?(obj: T): boolean;
}

/**
 * Passes updates whose `metadata.generation` changed, i.e. spec changes on kinds with a status
 * subresource — and not status-only writes, label/annotation edits or resyncs. Updates that set a
 * deletion timestamp or change finalizers pass too, so deletion is never missed.
 */
export const generationChanged: Predicate = {
  update: (old, obj) =>
    old.metadata?.generation !== obj.metadata?.generation ||
    Boolean(obj.metadata?.deletionTimestamp) !== Boolean(old.metadata?.deletionTimestamp) ||
    (old.metadata?.finalizers ?? []).join() !== (obj.metadata?.finalizers ?? []).join(),
};

/** Passes updates whose resourceVersion changed: drops resyncs. */
export const resourceVersionChanged: Predicate = {
  update: (old, obj) => old.metadata?.resourceVersion !== obj.metadata?.resourceVersion,
};

/** Passes updates whose labels changed. */
export const labelsChanged: Predicate = {
  update: (old, obj) => !sameRecord(old.metadata?.labels, obj.metadata?.labels),
};

/** Passes updates whose annotations changed. */
export const annotationsChanged: Predicate = {
  update: (old, obj) => !sameRecord(old.metadata?.annotations, obj.metadata?.annotations),
};

/** Passes an event when any of `predicates` passes it. */
export function or<T>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => predicates.some((p) => p.create?.(o) ?? true),
    update: (a, b) => predicates.some((p) => p.update?.(a, b) ?? true),
    delete: (o) => predicates.some((p) => p.delete?.(o) ?? true),
  };
}

/** Passes an event when all of `predicates` pass it. */
export function and<T>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (o) => predicates.every((p) => p.create?.(o) ?? true),
    update: (a, b) => predicates.every((p) => p.update?.(a, b) ?? true),
    delete: (o) => predicates.every((p) => p.delete?.(o) ?? true),
  };
}

export function passesCreate<T>(predicates: readonly Predicate<T>[], obj: T): boolean {
  return predicates.every((p) => p.create?.(obj) ?? true);
}

export function passesUpdate<T>(predicates: readonly Predicate<T>[], old: T, obj: T): boolean {
  return predicates.every((p) => p.update?.(old, obj) ?? true);
}

export function passesDelete<T>(predicates: readonly Predicate<T>[], obj: T): boolean {
  return predicates.every((p) => p.delete?.(obj) ?? true);
}

function sameRecord(
  a: Record<string, string> | undefined,
  b: Record<string, string> | undefined,
): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => a![k] === b?.[k]);
}
