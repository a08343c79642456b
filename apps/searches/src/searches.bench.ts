import { resolve } from 'node:path';
import type { CreatedAccount, SearchRecord } from '@immo/contracts';
import { withTemporaryStack, type RunningStack } from '@immo/stack';
import { httpRequest, type Measurement, type Scenario } from '@immo/testing';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const CONCURRENCY = 8;
const ACCOUNTS = 8;
const OPERATIONS = Number(process.env['SEARCHES_OPERATIONS'] ?? 1600);
/** Requests of the authentication comparison, each way. */
const AUTH_REQUESTS = Number(process.env['SEARCHES_AUTH_REQUESTS'] ?? 3000);
const LIST_REQUESTS = Number(process.env['SEARCHES_LIST_REQUESTS'] ?? OPERATIONS);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const notes = (samples: number[], target: string) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (target ${target})`;
};

function body(i: number): Record<string, unknown> {
  return {
    title: `Recherche ${i}`,
    transactionType: i % 2,
    propertyTypes: [i % 3],
    budgetMax: 200_000 + (i % 50) * 10_000,
    surfaceMin: 20 + (i % 40),
    includedDepartments: ['/departments/69'],
    expressions: [[{ word: 'jardin' }]],
  };
}

/** Through the lean keep-alive client (see @immo/testing): the load generator shares the two cores. */
async function timed(stack: RunningStack, method: string, path: string, apiKey: string, payload?: unknown): Promise<{ ms: number; json: unknown }> {
  const started = performance.now();
  const response = await httpRequest(method, `${stack.baseUrl}${path}`, { 'X-API-KEY': apiKey }, payload);
  const ms = performance.now() - started;
  const json = response.body.length === 0 ? null : (JSON.parse(response.body.toString('utf8')) as unknown);
  if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return { ms, json };
}

async function concurrently(count: number, work: (i: number) => Promise<number>): Promise<{ samples: number[]; wallMs: number }> {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) samples.push(await work(next++));
    }),
  );
  return { samples, wallMs: performance.now() - started };
}

const scenario: Scenario = {
  name: 'searches',
  description: `${OPERATIONS} creates, updates and reads of saved searches through the gateway at concurrency ${CONCURRENCY} (targets p99 ≤ 50 ms writes, ≤ 20 ms reads); authentication cost of a cached account key against an API_KEYS key`,
  run: () =>
    withTemporaryStack(ROOT, async (stack) => {
      const accounts: CreatedAccount[] = [];
      for (let i = 0; i < ACCOUNTS; i++) accounts.push((await timed(stack, 'POST', '/admin/accounts', stack.adminApiKey, { name: `bench ${i}` })).json as CreatedAccount);
      const keyOf = (i: number) => (accounts[i % ACCOUNTS] as CreatedAccount).apiKey;
      const ids: string[] = [];
      // Warm-up: the geo lookups, JIT and key caches.
      for (let i = 0; i < 40; i++) ids.push(((await timed(stack, 'POST', '/searches', keyOf(i), body(i))).json as SearchRecord).id);

      const creates = await concurrently(OPERATIONS, async (i) => {
        const { ms, json } = await timed(stack, 'POST', '/searches', keyOf(i), body(i));
        ids[i] = (json as SearchRecord).id;
        return ms;
      });
      const updates = await concurrently(OPERATIONS, (i) => timed(stack, 'POST', `/searches/${ids[i]}`, keyOf(i), { ...body(i + 1), title: `Modifiée ${i}` }).then((r) => r.ms));
      const reads = await concurrently(OPERATIONS, (i) => timed(stack, 'GET', `/searches/${ids[i]}`, keyOf(i)).then((r) => r.ms));
      // Warm-up of the listing path (compiled code), as the writes had with the first forty creates.
      await concurrently(200, (i) => timed(stack, 'GET', '/searches?order[title]=asc&page=2', keyOf(i)).then((r) => r.ms));
      const lists = await concurrently(LIST_REQUESTS, (i) => timed(stack, 'GET', '/searches?order[title]=asc&page=2', keyOf(i)).then((r) => r.ms));

      // Authentication: the same cheap request, one that reads no account data (a department from
      // the geo service), with a configured key (the admin key goes through the same code as
      // API_KEYS) and with a cached account key. The difference of medians is what account keys add.
      const bootstrapKey = stack.adminApiKey;
      const accountKey = keyOf(0);
      const authPath = '/departments/75';
      const runAuth = (key: string) => concurrently(AUTH_REQUESTS, () => timed(stack, 'GET', authPath, key).then((r) => r.ms));
      await runAuth(accountKey);
      const bootstrap = await runAuth(bootstrapKey);
      const account = await runAuth(accountKey);
      const median = (samples: number[]) => percentile([...samples].sort((a, b) => a - b), 50);
      const authCost = median(account.samples) - median(bootstrap.samples);

      const row = (label: string, run: { samples: number[]; wallMs: number }, note: string): Measurement => ({
        label,
        samplesMs: run.samples,
        wallMs: run.wallMs,
        operations: run.samples.length,
        notes: note,
      });
      return [
        row(`create, concurrency ${CONCURRENCY}`, creates, notes(creates.samples, 'p99 ≤ 50 ms')),
        row(`update, concurrency ${CONCURRENCY}`, updates, notes(updates.samples, 'p99 ≤ 50 ms')),
        row(`read by id, concurrency ${CONCURRENCY}`, reads, notes(reads.samples, 'p99 ≤ 20 ms')),
        row(`list (page 2, by title), concurrency ${CONCURRENCY}`, lists, notes(lists.samples, 'p99 ≤ 20 ms')),
        row('auth: configured key', bootstrap, notes(bootstrap.samples, 'baseline')),
        row('auth: cached account key', account, `${notes(account.samples, 'p50 ≤ baseline + 0.2 ms')}; adds ${authCost.toFixed(2)} ms at p50`),
      ];
    }),
};

export const benchScenarios: Scenario[] = [scenario];
