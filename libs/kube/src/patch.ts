/** One RFC 6902 JSON-patch operation, as sent with `application/json-patch+json`. */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  /** Fails the whole patch (HTTP 422, nothing written) unless the value at `path` equals `value`. */
  | { op: 'test'; path: string; value: unknown };

/**
 * An RFC 6901 JSON pointer from path segments, escaping `~` and `/`:
 * `jsonPointer('metadata', 'annotations', 'steward.dev/paused')` →
 * `/metadata/annotations/steward.dev~1paused`.
 */
export function jsonPointer(...segments: (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
