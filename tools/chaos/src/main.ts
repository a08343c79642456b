/**
 * `npm run chaos`: the whole stack on loopback under bounded load — ingestion, property queries
 * and saved searches — with webhook receivers that are slow, fail half the time or never answer,
 * while the notifier and then nats-server are killed (SIGKILL) and restarted. With `REPLICAS=2`
 * (and `NATS_NODES=3`), as `npm start` takes them, it runs that shape instead, sends requests
 * through every gateway in turn, and kills one replica of each service (and one NATS node). It
 * then waits for
 * the pipeline to settle and checks that nothing acknowledged was lost:
 * - every snapshot ingestion accepted is in a property;
 * - every saved search whose creation answered 201 exists;
 * - every match the matcher stored has its delivery, and every delivery is delivered, failed or
 *   still pending (the ledger: created = delivered + failed + pending).
 * It prints the requests by status and the ledger, and exits 1 when anything was lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CreatedAccount, DeliveryView, IngestAdvertsReply, PropertyDocument, SearchRecord } from '@immo/contracts';
import { startStack, type RunningStack } from '@immo/stack';
import { freePortRange, httpRequest, startWebhookReceiver, type WebhookReceiver } from '@immo/testing';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const LOAD_SECONDS = Number(process.env['CHAOS_SECONDS'] ?? 60);
const ADVERTS_PER_TICK = 10;
const TICK_MS = 200;
const SETTLE_TIMEOUT_MS = 180_000;

const CITIES = [
  { insee: '69123', zipcode: '69003', name: 'Lyon', lat: 45.7597, lon: 4.8553 },
  { insee: '33063', zipcode: '33000', name: 'Bordeaux', lat: 44.8378, lon: -0.5792 },
  { insee: '31555', zipcode: '31000', name: 'Toulouse', lat: 43.6045, lon: 1.444 },
];
/** Receivers' behaviours, one path each; every search notifies one of them. */
const RECEIVER_PATHS = ['/ok/', '/slow/', '/flaky/', '/hang/'] as const;

type Collection<T> = { 'hydra:member': T[]; 'hydra:totalItems': number };

class Tally {
  readonly byStatus = new Map<string, number>();

  count(label: string, status: number): void {
    const key = `${label} ${status === 0 ? 'no answer' : status}`;
    this.byStatus.set(key, (this.byStatus.get(key) ?? 0) + 1);
  }

  print(): void {
    for (const [key, count] of [...this.byStatus.entries()].sort()) process.stdout.write(`  ${key.padEnd(32)} ${count}\n`);
  }
}

let calls = 0;

async function call(stack: RunningStack, tally: Tally, label: string, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  try {
    const gateway = stack.baseUrls[calls++ % stack.baseUrls.length] as string;
    const response = await httpRequest(method, `${gateway}${path}`, { 'X-API-KEY': key }, body);
    tally.count(label, response.status);
    return { status: response.status, json: response.body.length > 0 ? (JSON.parse(response.body.toString('utf8')) as unknown) : null };
  } catch {
    tally.count(label, 0);
    return { status: 0, json: null };
  }
}

function snapshot(i: number): Record<string, unknown> {
  const city = CITIES[i % CITIES.length] as (typeof CITIES)[number];
  const surface = 20 + (i % 150);
  const reference = `CHAOS-${String(i).padStart(7, '0')}`;
  return {
    site: 'chaos',
    siteCategory: 'portal',
    url: `https://chaos.example/annonces/${reference}`,
    reference,
    publisher: { name: 'Agence Chaos (synthetic)', category: 'agency', type: 1 },
    title: `Appartement ${surface} m² ${reference}`,
    description: 'Annonce synthétique du test de chaos.',
    price: Math.round(surface * (2500 + ((i * 97) % 3000))),
    surface,
    room: 1 + (i % 5),
    propertyType: i % 2,
    transactionType: 0,
    // Far enough apart that no two adverts are taken for the same good.
    location: { lat: city.lat + ((i % 100) - 50) * 0.002, lon: city.lon + (Math.floor(i / 100) % 100 - 50) * 0.002, accuracy: 1 },
    commune: { insee: city.insee, zipcode: city.zipcode, name: city.name },
    seenAt: new Date().toISOString(),
  };
}

async function allPages<T>(stack: RunningStack, key: string, path: string, perPage: number): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const separator = path.includes('?') ? '&' : '?';
    const response = await httpRequest('GET', `${stack.baseUrl}${path}${separator}page=${page}&itemsPerPage=${perPage}`, { 'X-API-KEY': key });
    if (response.status !== 200) throw new Error(`GET ${path} page ${page} answered ${response.status}`);
    const members = (JSON.parse(response.body.toString('utf8')) as Collection<T>)['hydra:member'];
    items.push(...members);
    if (members.length < perPage) return items;
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chaos-'));
  const certDir = mkdtempSync(join(tmpdir(), 'chaos-cert-'));
  // One receiver (host) per behaviour: breakers and in-flight caps are per host, as in real life.
  const receiver: WebhookReceiver = await startWebhookReceiver(certDir);
  const receivers = new Map<(typeof RECEIVER_PATHS)[number], WebhookReceiver>([['/ok/', receiver]]);
  for (const path of RECEIVER_PATHS.slice(1)) receivers.set(path, await startWebhookReceiver(certDir, receiver));
  let flaky = 0;
  receivers.get('/slow/')?.answer('/', { status: 200, delayMs: 1500 });
  receivers.get('/flaky/')?.answer('/', () => (++flaky % 2 === 0 ? 500 : 200));
  receivers.get('/hang/')?.answer('/', 'hang');
  const received = () => [...receivers.values()].flatMap((r) => r.received);
  const replicas = Number(process.env['REPLICAS'] ?? 1);
  const natsNodes = process.env['NATS_NODES'] === '3' ? 3 : 1;
  const stack = await startStack({
    root: ROOT,
    dataDir,
    port: await freePortRange(replicas),
    natsPort: await freePortRange(natsNodes),
    natsRoutePortBase: await freePortRange(natsNodes),
    replicas,
    natsNodes,
    healthPortBase: 0,
    output: { logDir: join(dataDir, 'logs') },
    readyTimeoutMs: 120_000,
    env: {
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      WEBHOOK_PRIVATE_TARGETS_ALLOWED: '127.0.0.1/32',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_INTERVAL_MS: '2000',
      WEBHOOK_MAX_RETRIES: '3',
      RATE_LIMIT_REQUESTS: '0',
    },
  });
  const tally = new Tally();
  let lost = 0;
  try {
    const account = (await call(stack, tally, 'POST /admin/accounts', 'POST', '/admin/accounts', stack.adminApiKey, { name: 'chaos' })).json as CreatedAccount;
    const key = account.apiKey;
    const created: SearchRecord[] = [];
    for (let i = 0; i < 12; i++) {
      const city = CITIES[i % CITIES.length] as (typeof CITIES)[number];
      const answer = await call(stack, tally, 'POST /searches', 'POST', '/searches', key, {
        title: `Chaos ${i}`,
        transactionType: 0,
        propertyTypes: [i % 2],
        includedCities: [`/cities/${city.insee}`],
        notificationEnabled: true,
        endpointRecipient: (receivers.get(RECEIVER_PATHS[i % RECEIVER_PATHS.length] as (typeof RECEIVER_PATHS)[number]) as WebhookReceiver).url(`${RECEIVER_PATHS[i % RECEIVER_PATHS.length]}${i}`),
      });
      if (answer.status === 201) created.push(answer.json as SearchRecord);
    }

    const accepted = new Set<string>();
    let next = 0;
    let running = true;
    const started = Date.now();
    const ingestion = (async () => {
      while (running) {
        const batch = Array.from({ length: ADVERTS_PER_TICK }, () => snapshot(next++));
        const answer = await call(stack, tally, 'POST /admin/adverts', 'POST', '/admin/adverts', stack.adminApiKey, batch);
        if (answer.status === 200) {
          for (const result of (answer.json as IngestAdvertsReply).results) if (result.status === 'accepted') accepted.add(result.advertId);
        }
        await new Promise((r) => setTimeout(r, TICK_MS));
      }
    })();
    const queries = Array.from({ length: 2 }, async (_, worker) => {
      while (running) {
        await call(stack, tally, 'GET /documents/properties', 'GET', `/documents/properties?transactionType=0&propertyTypes[]=${worker}&order[price]=asc&itemsPerPage=10`, key);
        await call(stack, tally, 'GET /searches', 'GET', '/searches', key);
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    const chaos = (async () => {
      const at = async (seconds: number) => new Promise((r) => setTimeout(r, Math.max(0, started + seconds * 1000 - Date.now())));
      const fraction = LOAD_SECONDS / 60;
      // One replica: the notifier, then the nats-server. Replicas: the last of each service, then the last NATS node.
      const victims = replicas === 1 ? ['notifier'] : (['listings', 'searches', 'notifier', 'geo', 'gateway'] as const).map((name) => stack.replicasOf(name).at(-1) as string);
      const broker = stack.replicasOf('nats-server').at(-1) as string;
      await at(15 * fraction);
      process.stdout.write(`chaos: kill -9 ${victims.join(', ')}\n`);
      for (const victim of victims) await stack.killApp(victim);
      await at(18 * fraction);
      for (const victim of victims) await stack.restartApp(victim);
      process.stdout.write(`chaos: ${victims.join(', ')} restarted\n`);
      await at(35 * fraction);
      process.stdout.write(`chaos: kill -9 ${broker}\n`);
      await stack.killApp(broker);
      await at(38 * fraction);
      await stack.restartApp(broker);
      process.stdout.write(`chaos: ${broker} restarted\n`);
    })();
    await chaos;
    await new Promise((r) => setTimeout(r, Math.max(0, started + LOAD_SECONDS * 1000 - Date.now())));
    running = false;
    await Promise.all([ingestion, ...queries]);
    process.stdout.write(`load done: ${accepted.size} snapshots accepted; settling\n`);

    // Settle: every accepted advert in a property, every match with its delivery. Deliveries to
    // the hanging receiver may stay pending for long (breaker, retries): pending is a state of the ledger.
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    let report = await inspect(stack, key, created, accepted);
    while (Date.now() < deadline && (report.missingAdverts > 0 || report.undelivered > 0)) {
      await new Promise((r) => setTimeout(r, 2000));
      report = await inspect(stack, key, created, accepted);
    }

    process.stdout.write('\nrequests by status:\n');
    tally.print();
    const { ledger } = report;
    process.stdout.write(
      `\nsnapshots accepted ${accepted.size}, in a property ${accepted.size - report.missingAdverts}\n` +
        `searches created ${created.length}, found ${report.searchesFound}\n` +
        `matches ${report.matches}, with a delivery ${report.matches - report.undelivered}\n` +
        `delivery ledger: created ${ledger.created} = delivered ${ledger.delivered} + failed ${ledger.failed} + pending ${ledger.pending}` +
        `${ledger.created === ledger.delivered + ledger.failed + ledger.pending ? '' : '  (DOES NOT ADD UP)'}\n` +
        `webhooks received ${received().length} (distinct webhook-ids ${new Set(received().map((w) => w.headers['webhook-id'])).size}); ` +
        `by receiver: ${[...receivers.entries()].map(([path, r]) => `${path} ${r.received.length}`).join(', ')}\n`,
    );
    lost = report.missingAdverts + (created.length - report.searchesFound) + report.undelivered + (ledger.created - ledger.delivered - ledger.failed - ledger.pending);
    process.stdout.write(lost === 0 ? '\nchaos: nothing acknowledged was lost\n' : `\nchaos: ${lost} acknowledged items LOST\n`);
  } finally {
    await stack.stop();
    for (const r of receivers.values()) await r.close();
    if (!process.env['KEEP_CHAOS_DATA']) rmSync(dataDir, { recursive: true, force: true });
    rmSync(certDir, { recursive: true, force: true });
  }
  process.exit(lost === 0 ? 0 : 1);
}

interface Inspection {
  missingAdverts: number;
  searchesFound: number;
  matches: number;
  undelivered: number;
  ledger: { created: number; delivered: number; failed: number; pending: number; streamed: number };
}

async function inspect(stack: RunningStack, key: string, searches: SearchRecord[], accepted: Set<string>): Promise<Inspection> {
  const properties = await allPages<PropertyDocument>(stack, key, '/documents/properties?includedSites[]=chaos&order[createdAt]=asc', 30);
  const inProperties = new Set(properties.flatMap((property) => property.adverts.map((advert) => advert.uuid)));
  const missingAdverts = [...accepted].filter((id) => !inProperties.has(id)).length;
  const ledger = { created: 0, delivered: 0, failed: 0, pending: 0, streamed: 0 };
  let searchesFound = 0;
  let matches = 0;
  let undelivered = 0;
  for (const search of searches) {
    const found = await httpRequest('GET', `${stack.baseUrl}/searches/${search.id}`, { 'X-API-KEY': key });
    if (found.status !== 200) continue;
    searchesFound++;
    const matched = await allPages<{ '@id': string }>(stack, key, `/searches/${search.id}/matches`, 30);
    const deliveries = await allPages<DeliveryView>(stack, key, `/searches/${search.id}/deliveries`, 100);
    matches += matched.length;
    undelivered += Math.max(0, matched.length - deliveries.filter((delivery) => delivery.kind === 'match').length);
    for (const delivery of deliveries) {
      ledger.created++;
      ledger[delivery.status]++;
    }
  }
  return { missingAdverts, searchesFound, matches, undelivered, ledger };
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
});
