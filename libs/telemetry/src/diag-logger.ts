import { type DiagLogger } from '@opentelemetry/api';
import { type Logger } from './logger.js';

type Level = 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Routes OpenTelemetry's own diagnostics (failed OTLP exports, misused instruments) into the log,
 * tagged `component: "opentelemetry"`; without it they are silently dropped. An error argument
 * becomes `err`, other arguments `details`, so the logger's redaction applies to them.
 */
export function diagLogger(logger: Logger): DiagLogger {
  const log = logger.child({ component: 'opentelemetry' });
  const at =
    (level: Level) =>
    (message: string, ...args: unknown[]): void => {
      const err = args.find((arg) => arg instanceof Error);
      const details = args.filter((arg) => arg !== err);
      log[level]({ ...(err ? { err } : {}), ...(details.length ? { details } : {}) }, message);
    };
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    verbose: at('trace'),
  };
}
