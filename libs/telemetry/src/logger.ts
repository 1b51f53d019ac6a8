import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import {
  type DestinationStream,
  type Level,
  type LoggerOptions as PinoOptions,
  type Logger as PinoLogger,
  pino,
} from 'pino';
import { type ReconcileTarget } from './reconcile-span.js';
import { REDACTED_KEYS, redactSecrets, sensitiveKeySet } from './redaction.js';

/** Steward's logger: pino, writing one JSON object per line. */
export type Logger = PinoLogger;

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** The lowest level written; default `info`. */
  readonly level?: Level | 'silent';
  /** Where lines go; default standard output. Anything with `write(line)` will do, e.g. in tests. */
  readonly destination?: DestinationStream;
  /** Fields on every line, replacing pino's default `pid` and `hostname`. */
  readonly base?: Record<string, unknown>;
  /** Keys to redact in addition to {@link REDACTED_KEYS}. */
  readonly redactKeys?: readonly string[];
}

/**
 * A JSON logger for controllers. Every line carries `level` as a name (`"info"`), `time` in ISO
 * 8601, and — while a span is active, e.g. inside `withReconcileSpan` — that span's `trace_id`,
 * `span_id` and `trace_flags`, so a log line leads to its trace. Values under sensitive keys
 * (passwords, tokens, authorization headers, cookies, a Secret's `data`/`stringData`; see
 * {@link REDACTED_KEYS}) are replaced by `[REDACTED]` at any depth, in log calls and in child
 * bindings, without touching the objects passed in.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const keys = sensitiveKeySet([...REDACTED_KEYS, ...(options.redactKeys ?? [])]);
  const pinoOptions: PinoOptions = {
    level: options.level ?? 'info',
    ...(options.base ? { base: options.base } : {}),
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: activeSpanFields,
    formatters: {
      level: (label) => ({ level: label }),
      bindings: (bindings) => redactSecrets(bindings, keys),
      log: (object) => redactSecrets(object, keys),
    },
  };
  // Without a destination pino writes to standard output synchronously: no line is lost on a crash.
  const logger = options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
  // pino applies `formatters.bindings` to the root's bindings only, so child bindings are redacted
  // here; children inherit this `child` through their prototype, so grandchildren are covered too.
  const child = logger.child;
  logger.child = function (this: Logger, bindings, childOptions) {
    return child.call(this, redactSecrets(bindings, keys), childOptions);
  } as typeof child;
  return logger;
}

function activeSpanFields(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return {};
  return {
    trace_id: spanContext.traceId,
    span_id: spanContext.spanId,
    trace_flags: `0${spanContext.traceFlags.toString(16)}`.slice(-2),
  };
}

/** A child of `logger` whose lines carry `controller`. */
export function controllerLogger(logger: Logger, controller: string): Logger {
  return logger.child({ controller });
}

/**
 * A child of `logger` for one reconcile, whose lines carry `controller`, `kind`, `namespace` (when
 * namespaced) and `name` of the reconciled object.
 */
export function reconcileLogger(logger: Logger, target: ReconcileTarget): Logger {
  return logger.child({
    controller: target.controller,
    kind: target.kind,
    ...(target.namespace ? { namespace: target.namespace } : {}),
    name: target.name,
  });
}
