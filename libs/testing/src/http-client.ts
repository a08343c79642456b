import { Agent, request } from 'node:http';

/**
 * A lean keep-alive HTTP client for load measurements. `fetch` spends more CPU per request than
 * the servers under test on this size of machine, so the client would dominate the tail latency.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function httpGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  return httpRequest('GET', url, headers);
}

/** Any method; a body is sent as JSON. */
export function httpRequest(method: string, url: string, headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; body: Buffer }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const allHeaders = payload === undefined ? headers : { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: allHeaders, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
