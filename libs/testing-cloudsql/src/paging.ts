import { invalidRequest } from './errors.js';

/**
 * List pagination: at most `maxResults` items (500 when unset, 1000 at most) and an opaque
 * `nextPageToken` when more remain; the token is the offset of the next page.
 */
export function page<T>(
  items: readonly T[],
  maxResults: string | null,
  pageToken: string | null,
): { items: T[]; nextPageToken?: string } {
  const requested = maxResults ? Number(maxResults) : 0;
  const size = requested > 0 ? Math.min(requested, 1000) : 500;
  let offset = 0;
  if (pageToken) {
    const decoded = Number(Buffer.from(pageToken, 'base64url').toString('utf8'));
    if (!Number.isInteger(decoded) || decoded < 0) throw invalidRequest('Invalid page token.');
    offset = decoded;
  }
  const slice = items.slice(offset, offset + size);
  const next = offset + size;
  return next < items.length
    ? { items: slice, nextPageToken: Buffer.from(String(next)).toString('base64url') }
    : { items: slice };
}
