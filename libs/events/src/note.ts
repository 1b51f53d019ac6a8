/** The API server's limit on an Event's `note`, in bytes of UTF-8 (Go's `len`). */
export const maxNoteBytes = 1024;

/**
 * `message` cut to at most 1024 bytes of UTF-8 — so at most 1024 characters, exactly 1024 for a
 * long ASCII message — never splitting a character. Shorter messages come back unchanged.
 */
export function truncateNote(message: string, limit = maxNoteBytes): string {
  if (Buffer.byteLength(message, 'utf8') <= limit) return message;
  let bytes = 0;
  let end = 0;
  for (const char of message) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > limit) break;
    bytes += size;
    end += char.length;
  }
  return message.slice(0, end);
}

/** `value` cut to `limit` characters (reason and action are limited to 128 by the API server). */
export function truncate(value: string, limit: number): string {
  return value.length <= limit ? value : value.slice(0, limit);
}
