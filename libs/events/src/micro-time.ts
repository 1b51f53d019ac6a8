/**
 * `metav1.MicroTime` as the API server writes it: RFC 3339 in UTC with exactly six fractional
 * digits, e.g. `2026-01-01T00:00:00.123000Z`. JavaScript time has millisecond precision, so the last
 * three digits are always zero.
 */
export function formatMicroTime(time: Date | number): string {
  const iso = new Date(time).toISOString();
  return `${iso.slice(0, -1)}000Z`;
}
