import { Agent, request } from 'node:http';

/**
 * A lean keep-alive HTTP client for load measurements. `fetch` spends more CPU per request than
 * the servers under test on this size of machine, so the client would dominate the tail latency.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function httpGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
