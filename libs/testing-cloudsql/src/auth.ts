/**
 * Stands in for google-auth-library in the REST (fallback) transport: google-gax takes an `auth`
 * object with `getRequestHeaders()` as the auth client and sends every request through its
 * `fetch(url, init)`. This one adds no credentials and uses Node's fetch, so the real client runs
 * with no Google credentials, metadata server or network access.
 */
export interface PassThroughAuth {
  getRequestHeaders(): Promise<Headers>;
  getProjectId(): Promise<string>;
  fetch(url: string | URL, init?: PassThroughRequestInit): Promise<Response>;
}

/** What google-gax passes to `fetch`: gaxios options, of which plain fetch needs these. */
interface PassThroughRequestInit {
  method?: string;
  headers?: RequestInit['headers'];
  body?: RequestInit['body'];
  signal?: AbortSignal | null;
}

export function passThroughAuth(projectId = 'steward-test'): PassThroughAuth {
  return {
    getRequestHeaders: async () => new Headers(),
    getProjectId: async () => projectId,
    fetch: (url, init = {}) =>
      fetch(url, {
        method: init.method,
        headers: init.headers,
        body: init.body ?? null,
        signal: init.signal ?? null,
      }),
  };
}
