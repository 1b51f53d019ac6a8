/**
 * Seconds to wait from a `Retry-After` header: delta-seconds (`"3"`, what the API server sends) or
 * an HTTP-date, counted from `nowMs` and never negative. Undefined when absent or unparseable.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  if (/^\d/.test(text) || !/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
