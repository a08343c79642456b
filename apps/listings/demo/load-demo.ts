import { createReadStream, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SingleBar, Presets } from 'cli-progress';
import type { IngestAdvertsReply } from '@immo/contracts';
import { writeSnapshotsJsonl } from './generate-snapshots';

export interface DemoLoadOptions {
  baseUrl: string;
  adminApiKey: string;
  dataDir: string;
  /** Distinct goods to generate; each yields one property (or more snapshots of it). */
  goods: number;
  seed?: number;
  batchSize?: number;
  progress?: boolean;
}

export const DEMO_MARKER = 'loaded';
/** The demo timeline: about six months, ending when it is generated. */
const DEMO_DAYS = 182;

/**
 * Generates the SYNTHETIC demo set (seeded, real communes, the six months up to now), writes it as JSONL under
 * DATA_DIR/demo and loads it through the ingestion API, like a crawler would.
 */
export async function loadDemoData(options: DemoLoadOptions): Promise<{ snapshots: number; accepted: number; rejected: number }> {
  const dir = join(options.dataDir, 'demo');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'snapshots.jsonl');
  // The six months up to now: "newest first", price series and event filters look current.
  const start = new Date(Date.now() - DEMO_DAYS * 24 * 3600 * 1000).toISOString();
  const { count } = await writeSnapshotsJsonl(file, { goods: options.goods, seed: options.seed ?? 2026, start, days: DEMO_DAYS });
  const bar = options.progress === false ? null : new SingleBar({ format: ' demo data |{bar}| {percentage}% {value}/{total} snapshots' }, Presets.shades_classic);
  bar?.start(count, 0);

  let accepted = 0;
  let rejected = 0;
  let batch: unknown[] = [];
  const send = async () => {
    const response = await fetch(`${options.baseUrl}/admin/adverts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-KEY': options.adminApiKey },
      body: JSON.stringify(batch),
    });
    if (!response.ok) throw new Error(`ingestion answered ${response.status}: ${await response.text()}`);
    const reply = (await response.json()) as IngestAdvertsReply;
    accepted += reply.accepted;
    rejected += reply.rejected;
    bar?.increment(batch.length);
    batch = [];
  };
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    batch.push(JSON.parse(line));
    if (batch.length >= (options.batchSize ?? 1000)) await send();
  }
  if (batch.length > 0) await send();
  bar?.stop();
  // The file is only a carrier (tens of MB); the events now live in the event store.
  rmSync(file, { force: true });
  writeFileSync(join(dir, DEMO_MARKER), `${new Date().toISOString()} ${accepted} accepted, ${rejected} rejected\n`);
  return { snapshots: count, accepted, rejected };
}

export function demoAlreadyLoaded(dataDir: string): boolean {
  return existsSync(join(dataDir, 'demo', DEMO_MARKER));
}
