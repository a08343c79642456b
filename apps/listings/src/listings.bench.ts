import { resolve } from 'node:path';
import type { IngestAdvertsReply, ProjectionStatusReply } from '@immo/contracts';
import { withTemporaryStack, type RunningStack } from '@immo/stack';
import { httpGet, timeSeries, type Measurement, type Scenario } from '@immo/testing';
import { generateDataset } from '../demo/generate-snapshots';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const SNAPSHOTS = 50_000;
const BATCH = 1000;

const withStack = <T>(run: (stack: RunningStack) => Promise<T>) => withTemporaryStack(ROOT, run);

async function status(stack: RunningStack): Promise<ProjectionStatusReply> {
  const response = await fetch(`${stack.baseUrl}/admin/read-models/properties/status`, { headers: { 'X-API-KEY': stack.adminApiKey } });
  return (await response.json()) as ProjectionStatusReply;
}

/** 50,000 time-ordered synthetic snapshots, ingested through the gateway in batches of 1,000. */
const ingestion: Scenario = {
  name: 'listings-ingest',
  description: `ingest ${SNAPSHOTS} snapshots end to end (accepted → appended → projected → integration events published)`,
  run: () =>
    withStack(async (stack) => {
      const snapshots = generateDataset({ goods: 3000, seed: 11 }).snapshots.slice(0, SNAPSHOTS);
      const batchMs: number[] = [];
      const started = performance.now();
      let accepted = 0;
      for (let i = 0; i < snapshots.length; i += BATCH) {
        const t0 = performance.now();
        const response = await fetch(`${stack.baseUrl}/admin/adverts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-API-KEY': stack.adminApiKey },
          body: JSON.stringify(snapshots.slice(i, i + BATCH)),
        });
        const reply = (await response.json()) as IngestAdvertsReply;
        accepted += reply.accepted;
        batchMs.push(performance.now() - t0);
      }
      const ingestedAt = performance.now();
      // The projection is caught up once its checkpoint reaches the last appended position
      // (its checkpoint is stored only after the integration events are acknowledged).
      let last = await status(stack);
      while (last.lastAppended !== null && (last.checkpoint ?? -1) < last.lastAppended) {
        await new Promise((r) => setTimeout(r, 10));
        last = await status(stack);
      }
      const projectedAt = performance.now();
      const totalMs = projectedAt - started;
      const batches: Measurement = {
        label: `POST /admin/adverts batch of ${BATCH}`,
        samplesMs: batchMs,
        wallMs: ingestedAt - started,
        operations: accepted,
        notes: `accepted ${accepted}/${snapshots.length}; ingest ${(accepted / ((ingestedAt - started) / 1000)).toFixed(0)}/s`,
      };
      const endToEnd: Measurement = {
        label: 'end to end (until projected + published)',
        samplesMs: [totalMs],
        wallMs: totalMs,
        operations: accepted,
        notes: `${(accepted / (totalMs / 1000)).toFixed(0)} snapshots/s; projection lag after last batch ${(projectedAt - ingestedAt).toFixed(0)} ms; ${last.properties} properties, ${last.adverts} adverts`,
      };
      return [batches, endToEnd];
    }),
};

/** GET /documents/properties/{id} through the gateway over a few thousand properties. */
const propertyById: Scenario = {
  name: 'listings-property-by-id',
  description: 'GET /documents/properties/{id} through the gateway at concurrency 8 (target p99 ≤ 10 ms)',
  run: () =>
    withStack(async (stack) => {
      const snapshots = generateDataset({ goods: 3000, seed: 5 }).snapshots;
      for (let i = 0; i < snapshots.length; i += BATCH) {
        await fetch(`${stack.baseUrl}/admin/adverts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-API-KEY': stack.adminApiKey },
          body: JSON.stringify(snapshots.slice(i, i + BATCH)),
        });
      }
      let current = await status(stack);
      while ((current.checkpoint ?? -1) < (current.lastAppended ?? 0)) {
        await new Promise((r) => setTimeout(r, 20));
        current = await status(stack);
      }
      const headers = { 'X-API-KEY': stack.apiKey };
      const ids: string[] = [];
      for (let page = 1; ids.length < 900; page++) {
        const response = await fetch(`${stack.baseUrl}/documents/properties?itemsPerPage=30&page=${page}`, { headers });
        const body = (await response.json()) as { 'hydra:member': { uuid: string }[] };
        if (body['hydra:member'].length === 0) break;
        ids.push(...body['hydra:member'].map((member) => member.uuid));
      }
      const get = async (i: number) => {
        const response = await httpGet(`${stack.baseUrl}/documents/properties/${ids[i % ids.length]}`, headers);
        if (response.status !== 200) throw new Error(`status ${response.status}`);
      };
      await timeSeries('warm-up', 500, 8, get);
      return [
        await timeSeries('concurrency 1', 3000, 1, get),
        { ...(await timeSeries('concurrency 8', 8000, 8, get)), notes: `${ids.length} distinct properties` },
      ];
    }),
};

export const benchScenarios: Scenario[] = [ingestion, propertyById];
