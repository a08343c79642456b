import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EmbeddedDocumentStore } from '@immo/document-store';
import { parsePropertyCriteria } from '@immo/property-criteria';
import { withTemporaryStack, type RunningStack } from '@immo/stack';
import { httpLoad, percentile, waitUntilIdle, type Measurement, type Scenario } from '@immo/testing';
import qs from 'qs';
import { generateDataset } from '../demo/generate-snapshots';
import { realCommunes } from '../demo/real-communes';
import { ingest, rejections, settled } from '../test/stack-ingestion';
import { SEARCH_ROWS_COLLECTION, type SearchRowRecord } from './projection/read-models';
import { PropertySearchIndex } from './search/property-search-index';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
/** Goods to load (~0.98 property each); `SEARCH_GOODS` shrinks it for a quick look. */
const GOODS = Number(process.env['SEARCH_GOODS'] ?? 205_000);
const CHUNK_GOODS = 20_000;
/** Four days of crawls: recrawls, price and surface events, without the full history's load time. */
const DAYS = 4;
const CONCURRENCY = 8;
const REQUESTS = Number(process.env['SEARCH_REQUESTS'] ?? 4000);
const IN_PROCESS_ROUNDS = 50;
/** About five seconds of the mix before measuring it. */
const WARM_UP_REQUESTS = 3000;
const MIB = 1024 * 1024;

/**
 * Twenty-one queries an API client would send: a city and a type under a budget, a department by
 * price, a radius, words, price drops, live advert prices over the whole collection, deep pages,
 * several sorts. City ids are INSEE codes read as
 * numbers (as the geo service builds them), department ids their codes.
 */
const QUERY_MIX: readonly string[] = [
  'transactionType=0&propertyTypes[]=0&includedCities[]=/cities/75056&budgetMax=600000',
  'transactionType=0&propertyTypes[]=1&includedDepartments[]=/departments/33&surfaceMin=90&order[price]=asc',
  'transactionType=1&propertyTypes[]=0&lat=45.764&lon=4.8357&radius=10&roomMin=2',
  'transactionType=0&expressions[0][0][word]=terrasse&expressions[0][1][word]=piscine',
  'transactionType=0&eventPriceVariationMax=-3',
  'transactionType=0&propertyTypes[]=0&page=40',
  '',
  'transactionType=1&includedCities[]=/cities/13055&order[pricePerMeter]=asc',
  'transactionType=0&includedDepartments[]=/departments/59&includedDepartments[]=/departments/62&roomMin=3&roomMax=5',
  'transactionType=0&propertyTypes[]=0&propertyTypes[]=1&budgetMin=150000&budgetMax=300000&order[surface]=desc',
  'transactionType=0&expressions[0][0][word]=jardin&expressions[0][1][word]=cave&expressions[0][1][options][includes]=false',
  'transactionType=0&includedInseeCodes[]=31555&order[createdAt]=asc',
  'transactionType=1&includedZipcodes[]=44000&furnished=true',
  'transactionType=0&energyCategories[]=A&energyCategories[]=B&order[price]=desc',
  'transactionType=0&publisherTypes[]=0&includedDepartments[]=/departments/6',
  'transactionType=0&lat=43.6045&lon=1.444&radius=25&propertyTypes[]=1&landSurfaceMin=500',
  'transactionType=0&expired=false&fromDate=2026-01-05&sortMode=advert',
  'transactionType=1&propertyTypes[]=0&bedroomMin=2&page=5&itemsPerPage=30',
  'transactionType=0&pricePerMeterMin=2000&pricePerMeterMax=5000&order[updatedAt]=desc',
  'transactionType=0&includedDepartments[]=/departments/75&itemsPerPage=0',
  'advertPriceMin=100000&advertPriceMax=400000',
];

/** The price per m² of a department's flats or houses, for sale and to rent: the indicator's common use. */
const PRICE_PER_METER_QUERIES: readonly string[] = ['75', '13', '33', '59', '69', '31', '44', '6'].flatMap((department) => [
  `transactionType=0&propertyTypes[]=0&includedDepartments[]=/departments/${department}`,
  `transactionType=1&propertyTypes[]=1&includedDepartments[]=/departments/${department}&aggregationInterval=year`,
]);
/** Properties whose similar ones are asked for, taken from these searches' pages. */
const SIMILAR_SOURCES: readonly string[] = [
  'transactionType=0&propertyTypes[]=0&itemsPerPage=30',
  'transactionType=0&propertyTypes[]=1&itemsPerPage=30&page=3',
  'transactionType=1&itemsPerPage=30&order[price]=asc',
  'transactionType=0&includedDepartments[]=/departments/75&itemsPerPage=30',
];
/** Requests of each side endpoint: a p99 over 2,000 samples (about three seconds) is not the luck of one pause. */
const SIDE_REQUESTS = 2_000;

async function propertyIdsOf(stack: RunningStack, query: string): Promise<string[]> {
  const response = await fetch(`${stack.baseUrl}/documents/properties?${query}`, { headers: { 'X-API-KEY': stack.apiKey } });
  const page = (await response.json()) as { 'hydra:member': { uuid: string }[] };
  return page['hydra:member'].map((member) => member.uuid);
}

function latencyNotes(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`;
}

/**
 * `requests` GETs over `paths` round robin, `CONCURRENCY` at a time, from a worker thread (see
 * `httpLoad`): this process holds the loaded datasets' garbage, whose collection would pause a
 * client in this thread.
 */
function loadRun(stack: RunningStack, paths: readonly string[], requests: number): Promise<{ samples: number[]; wallMs: number }> {
  return httpLoad({ baseUrl: stack.baseUrl, headers: { 'X-API-KEY': stack.apiKey }, paths, requests, concurrency: CONCURRENCY });
}

function residentMiB(pid: number | undefined): string {
  if (pid === undefined) return '?';
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN);
  return `RSS ${(kib('VmRSS') / 1024).toFixed(0)} MiB (anon ${(kib('RssAnon') / 1024).toFixed(0)} MiB)`;
}

/** The same rows the listings service loads, in this process: the in-process baseline and the index's cost. */
async function inProcessIndex(dataDir: string): Promise<{ index: PropertySearchIndex; buildMs: number }> {
  const store = new EmbeddedDocumentStore({ dataDir: join(dataDir, 'listings', 'read-models') });
  try {
    const records = await store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION).find({});
    const started = performance.now();
    const index = new PropertySearchIndex();
    for (const record of records) index.upsert(record.row);
    return { index, buildMs: performance.now() - started };
  } finally {
    await store.close();
  }
}

const scenario: Scenario = {
  name: 'property-search',
  description: `load ${GOODS} goods (~${Math.round(GOODS * 0.98)} properties), then ${REQUESTS} GET /documents/properties of a ${QUERY_MIX.length}-query mix at concurrency ${CONCURRENCY} (targets p50 ≤ 15 ms, p99 ≤ 50 ms, ≥ 400 req/s), ${SIDE_REQUESTS} price_per_meter by department and ${SIDE_REQUESTS} similar-properties`,
  run: () =>
    withTemporaryStack(ROOT, async (stack) => {
      const communes = realCommunes();
      const loadStarted = performance.now();
      for (let first = 0, chunk = 0; first < GOODS; first += CHUNK_GOODS, chunk++) {
        const { snapshots } = generateDataset({ seed: 2000 + chunk, goods: Math.min(CHUNK_GOODS, GOODS - first), days: DAYS, multiPublisherShare: 0.25, communes });
        await ingest(stack, snapshots);
        process.stderr.write(`  loaded ${Math.min(first + CHUNK_GOODS, GOODS)} goods\n`);
      }
      const loaded = await settled(stack);
      const loadMs = performance.now() - loadStarted;
      // The projections have caught up, but the services still work for seconds after a load
      // (alert matching, expiries, collecting the load's garbage): queries are measured after it.
      const quiet = await waitUntilIdle(Object.values(stack.pids).filter((pid): pid is number => pid !== undefined), { timeoutMs: 120_000 });
      const disk = Number(execFileSync('du', ['-sb', join(stack.dataDir, 'listings')], { encoding: 'utf8' }).split('\t')[0]);
      const paths = QUERY_MIX.map((query) => `/documents/properties${query ? `?${query}` : ''}`);
      // Warm-up, so that what is measured is the steady state: optimised code in every service
      // (the first few thousand requests after a load or a restart run measurably slower), the
      // pages' document text cached, the sort orders built.
      await loadRun(stack, paths, WARM_UP_REQUESTS);

      const mix = await loadRun(stack, paths, REQUESTS);
      const sorted = [...mix.samples].sort((a, b) => a - b);

      const pricePerMeterPaths = PRICE_PER_METER_QUERIES.map((query) => `/indicators/price_per_meter?${query}`);
      await loadRun(stack, pricePerMeterPaths, pricePerMeterPaths.length * 5);
      const pricePerMeter = await loadRun(stack, pricePerMeterPaths, SIDE_REQUESTS);
      const similarIds = (await Promise.all(SIMILAR_SOURCES.map((query) => propertyIdsOf(stack, query)))).flat();
      const similarPaths = similarIds.map((id) => `/documents/properties/${id}/similar-properties`);
      await loadRun(stack, similarPaths, similarPaths.length * 2);
      const similar = await loadRun(stack, similarPaths, SIDE_REQUESTS);

      const { index, buildMs } = await inProcessIndex(stack.dataDir);
      const criteria = QUERY_MIX.map((query) => {
        const parsed = parsePropertyCriteria(qs.parse(query, { depth: 5, arrayLimit: 1000, plainObjects: true }) as Record<string, unknown>);
        if (!parsed.ok) throw new Error(`query "${query}" is invalid: ${JSON.stringify(parsed.violations)}`);
        return parsed.criteria;
      });
      const inProcess: number[] = [];
      for (let round = 0; round < IN_PROCESS_ROUNDS; round++) {
        for (const c of criteria) {
          const started = performance.now();
          index.search(c);
          inProcess.push(performance.now() - started);
        }
      }
      const inProcessSorted = [...inProcess].sort((a, b) => a - b);
      const ratio = percentile(sorted, 50) / percentile(inProcessSorted, 50);

      return [
        {
          label: `load ${loaded.properties} properties`,
          samplesMs: [loadMs],
          wallMs: loadMs,
          notes: `${rejections()}; listings ${residentMiB(stack.pids['listings'])}; listings data on disk ${(disk / MIB).toFixed(0)} MiB`,
        },
        {
          label: `gateway query mix, concurrency ${CONCURRENCY}`,
          samplesMs: mix.samples,
          wallMs: mix.wallMs,
          operations: mix.samples.length,
          notes: `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms after ${WARM_UP_REQUESTS} warm-up requests, started ${(quiet.waitedMs / 1000).toFixed(0)} s after the load (${quiet.idle ? 'services idle' : `services still ${(quiet.lastBusyShare * 100).toFixed(0)}% busy`}); gateway+NATS ${ratio.toFixed(1)}× the in-process median`,
        },
        {
          label: `price_per_meter of a department, concurrency ${CONCURRENCY}`,
          samplesMs: pricePerMeter.samples,
          wallMs: pricePerMeter.wallMs,
          operations: pricePerMeter.samples.length,
          notes: `${latencyNotes(pricePerMeter.samples)} (target p99 ≤ 100 ms); ${PRICE_PER_METER_QUERIES.length} queries: 8 departments, sale flats monthly, rented houses yearly`,
        },
        {
          label: `similar properties, concurrency ${CONCURRENCY}`,
          samplesMs: similar.samples,
          wallMs: similar.wallMs,
          operations: similar.samples.length,
          notes: `${latencyNotes(similar.samples)} (target p99 ≤ 30 ms); ${similarIds.length} properties from 4 searches' pages`,
        },
        {
          label: 'same queries in process (index only)',
          samplesMs: inProcess,
          wallMs: inProcess.reduce((a, b) => a + b, 0),
          operations: inProcess.length,
          notes: `index of ${index.size} properties: ~${(index.memoryBytes() / MIB).toFixed(0)} MiB, built from stored rows in ${buildMs.toFixed(0)} ms`,
        },
      ] satisfies Measurement[];
    }),
};

export const benchScenarios: Scenario[] = [scenario];
