import type { AdvertSnapshot, IngestAdvertsReply, ProjectionStatusReply } from '@immo/contracts';
import type { RunningStack } from '@immo/stack';

/** Snapshots per POST, the API's maximum. */
const BATCH = 1000;
/** Two batches in flight: the gateway and listings overlap their work, as with several crawlers. */
const CONCURRENCY = 2;

export async function status(stack: RunningStack): Promise<ProjectionStatusReply> {
  const response = await fetch(`${stack.baseUrl}/admin/read-models/properties/status`, { headers: { 'X-API-KEY': stack.adminApiKey } });
  if (!response.ok) throw new Error(`status answered ${response.status}`);
  return (await response.json()) as ProjectionStatusReply;
}

/** Until the projection has committed what this instance appended and the outbox is empty. */
export async function settled(stack: RunningStack): Promise<ProjectionStatusReply> {
  for (;;) {
    const current = await status(stack);
    if ((current.checkpoint ?? -1) >= (current.lastAppended ?? 0) && current.outboxPending === 0) return current;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Snapshots the service refused, by reason: a benchmark that loses some must say so. */
export const rejected = { count: 0, reasons: new Map<string, number>() };

export function rejections(): string {
  if (rejected.count === 0) return 'no snapshot rejected';
  return `${rejected.count} snapshots rejected (${[...rejected.reasons].map(([reason, n]) => `${n}× ${reason}`).join('; ')})`;
}

export async function ingest(stack: RunningStack, snapshots: AdvertSnapshot[]): Promise<number> {
  return ingestBodies(stack, requestBodies(snapshots));
}

/**
 * The POST bodies that ingest `snapshots`, a batch each. A benchmark serializes its load before
 * it starts the clock: crawlers run on their own machines, and their work would otherwise take
 * a core from the services measured.
 */
export function requestBodies(snapshots: AdvertSnapshot[]): Buffer[] {
  const bodies: Buffer[] = [];
  for (let first = 0; first < snapshots.length; first += BATCH) bodies.push(Buffer.from(JSON.stringify(snapshots.slice(first, first + BATCH))));
  return bodies;
}

/** Posts each body (a batch of snapshots), `CONCURRENCY` at a time; resolves with the snapshots accepted. */
export async function ingestBodies(stack: RunningStack, bodies: readonly Buffer[]): Promise<number> {
  let next = 0;
  let accepted = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const response = await fetch(`${stack.baseUrl}/admin/adverts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-API-KEY': stack.adminApiKey },
        body,
      });
      if (!response.ok) throw new Error(`ingestion answered ${response.status}: ${await response.text()}`);
      const reply = (await response.json()) as IngestAdvertsReply;
      accepted += reply.accepted;
      for (const result of reply.results) {
        if (result.status !== 'rejected') continue;
        rejected.count++;
        const message = result.violations[0]?.message ?? '';
        rejected.reasons.set(message, (rejected.reasons.get(message) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return accepted;
}
