import { Worker } from 'node:worker_threads';

export interface HttpLoadOptions {
  /** `http://host:port`, loopback only: load tests never leave the machine. */
  baseUrl: string;
  headers?: Record<string, string>;
  /** Requested round robin. */
  paths: readonly string[];
  requests: number;
  concurrency: number;
}

export interface HttpLoadResult {
  /** Milliseconds per request, in completion order. */
  samples: number[];
  wallMs: number;
}

/**
 * The load loop, run in its own thread. A benchmark process holds large datasets (the snapshots
 * it generated and loaded); a garbage collection of that heap would pause its client for tens of
 * milliseconds and show up as server latency. A worker has its own small heap, so its timings are
 * the servers'. Plain JavaScript: the worker runs it as source, under ts-jest as under node.
 */
const LOAD_LOOP = `
const { parentPort, workerData } = require('node:worker_threads');
const { Agent, request } = require('node:http');
const { baseUrl, headers, paths, requests, concurrency } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const get = (path) => new Promise((resolve, reject) => {
  const started = performance.now();
  const req = request(baseUrl + path, { headers, agent }, (res) => {
    res.on('data', () => undefined);
    res.on('end', () => res.statusCode >= 400 ? reject(new Error(path + ' answered ' + res.statusCode)) : resolve(performance.now() - started));
    res.on('error', reject);
  });
  req.on('error', reject);
  req.end();
});
(async () => {
  const samples = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < requests) samples.push(await get(paths[next++ % paths.length]));
  }));
  agent.destroy();
  parentPort.postMessage({ samples, wallMs: performance.now() - started });
})().catch((error) => parentPort.postMessage({ error: String(error && error.message || error) }));
`;

/** `requests` GETs over `paths`, `concurrency` at a time, timed from a worker thread. */
export function httpLoad(options: HttpLoadOptions): Promise<HttpLoadResult> {
  if (!/^http:\/\/127\.\d+\.\d+\.\d+(:\d+)?$/.test(options.baseUrl)) throw new Error(`load tests target loopback only, not ${options.baseUrl}`);
  if (options.paths.length === 0) throw new Error('no paths to request');
  const worker = new Worker(LOAD_LOOP, {
    eval: true,
    workerData: { baseUrl: options.baseUrl, headers: options.headers ?? {}, paths: [...options.paths], requests: options.requests, concurrency: options.concurrency },
  });
  return new Promise<HttpLoadResult>((resolve, reject) => {
    worker.once('message', (message: HttpLoadResult | { error: string }) => {
      void worker.terminate();
      if ('error' in message) reject(new Error(message.error));
      else resolve(message);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`load worker exited with code ${code} before answering`)));
  });
}
