import { type Span, SpanStatusCode } from '@opentelemetry/api';

/**
 * Marks `span` as failed by `error`: records it as an exception event, sets the status to ERROR with
 * the error's message, and sets `error.type` to the error's name (e.g. `ConflictError`,
 * `TerminalError`), so failures can be grouped without parsing messages.
 */
export function recordSpanError(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setAttribute('error.type', error.name);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    span.recordException(String(error));
    span.setAttribute('error.type', typeof error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
  }
}
