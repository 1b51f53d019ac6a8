import { type HttpMethod, type KubeConfig, RequestContext } from '@kubernetes/client-node';
import { type Dispatcher, getGlobalDispatcher } from 'undici';
import { type KubeRequest, type QueryValue } from './request.js';

/** Headers and the undici dispatcher (TLS client identity, CA, proxy) for one request. */
export interface PreparedRequest {
  url: URL;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
}

/**
 * The client's link to the API server described by a `KubeConfig`: the server URL, the user's
 * credentials, and one reused undici dispatcher (so connections and TLS sessions are pooled).
 *
 * client-node's `applySecurityAuthentication` is asked before every request, so refreshed
 * tokens (exec plugins, OIDC, bound service-account token files) are always current; but it builds
 * a new dispatcher each time, which this class closes unused in favour of the one it keeps. After a
 * 401, `renew()` swaps in the freshest one, picking up rotated client certificates.
 */
export class Connection {
  private readonly server: string;
  private dispatcher: Dispatcher | undefined;
  private renewing = false;

  constructor(private readonly kubeConfig: KubeConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new TypeError('steward/kube: the KubeConfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
  }

  url(path: string, query: Record<string, QueryValue> = {}): URL {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  async prepare(url: URL, method: KubeRequest['method']): Promise<PreparedRequest> {
    const context = new RequestContext(url.toString(), method as HttpMethod);
    await this.kubeConfig.applySecurityAuthentication(context);
    const fresh = context.getDispatcher() ?? getGlobalDispatcher();
    if (this.dispatcher === undefined || this.renewing) {
      const previous = this.dispatcher;
      this.dispatcher = fresh;
      this.renewing = false;
      if (previous !== undefined && previous !== fresh) void closeQuietly(previous);
    } else if (fresh !== this.dispatcher) {
      void closeQuietly(fresh);
    }
    return { url, headers: { ...context.getHeaders() }, dispatcher: this.dispatcher };
  }

  /** Use the next freshly built dispatcher from now on (credentials may have rotated). */
  renew(): void {
    this.renewing = true;
  }

  /** Closes pooled connections once their in-flight requests are done. */
  async close(): Promise<void> {
    const dispatcher = this.dispatcher;
    this.dispatcher = undefined;
    if (dispatcher !== undefined) await closeQuietly(dispatcher);
  }
}

async function closeQuietly(dispatcher: Dispatcher): Promise<void> {
  if (dispatcher === getGlobalDispatcher()) return;
  try {
    await dispatcher.close();
  } catch {
    // Already closed or destroyed: nothing left to release.
  }
}
