import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface TlsMaterial {
  ca?: string;
  cert?: string;
  key?: string;
}

/** GETs `url` once and returns status and body; rejects on connection errors or after 5 s. */
export function probe(
  url: string,
  tls: TlsMaterial = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(url, { ...tls, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
