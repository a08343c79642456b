/**
 * One run of the topology scenario against a running stack: saves the searches, ingests the
 * phases through every gateway in turn (retrying what was refused, as a crawler does), lets
 * `midRun` break things half-way, waits for the alerts to settle, then reads back what a user
 * would see: the webhooks received, the properties, the delivery log, and one query asked 30 times.
 */
import type { DeliveryView, IngestAdvertsReply, PropertyDocument, SearchRecord } from '@immo/contracts';
import type { RunningStack } from '@immo/stack';
import { httpRequest, type ReceivedWebhook, type WebhookReceiver } from '@immo/testing';
import type { ScenarioInput } from './scenario-input';

const BATCH = 50;
const INGEST_ATTEMPTS = 40;

export interface RunOptions {
  stack: RunningStack;
  receiver: WebhookReceiver;
  input: ScenarioInput;
  /** Called once half of the snapshots are in (kills, partitions…); awaited. */
  midRun?: () => Promise<void>;
  /** At least this many distinct notifications are expected (a reference run's count). */
  expectedNotifications?: number;
  settleTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface RunObservations {
  /** What each notification means, whatever the run's ids: kind, search title, property, new value. */
  notifications: Map<string, string[]>;
  /** POSTs received per webhook-id. */
  postsByWebhookId: Map<string, number>;
  /** Per search title and property: the prices its price events carried, in the order they arrived. */
  priceEventsInArrivalOrder: Map<string, number[]>;
  /** Each property as the sorted URLs of its adverts. */
  groupings: string[];
  /** The same query asked 30 times: distinct (total, page) answers. */
  queryAnswers: Set<string>;
  /** Webhook ids received that the searches' delivery logs lack, or list with fewer attempts than POSTs. */
  missingFromDeliveryLog: string[];
  searchIds: Map<string, string>;
  /** The account's matches as `GET /matches` lists them, its pages read through every gateway in turn (sorted ids). */
  matchesListed: string[];
  /** The matches the Match webhooks received announced (sorted ids, each once). */
  matchesNotified: string[];
  /** Webhooks POSTed more than once: when each POST arrived (epoch ms) and the attempts the delivery log lists. */
  duplicates: { id: string; arrivedAtMs: number[]; attempts: DeliveryView['attempts'] }[];
}

type Json = Record<string, unknown>;

async function call(stack: RunningStack, gateway: number, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const urls = stack.baseUrls;
  // A read whose connection failed (a kept-alive socket the server closed as it was reused) is
  // asked again through the next gateway, as a client would.
  const tries = method === 'GET' ? 3 : 1;
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await httpRequest(method, `${urls[(gateway + attempt) % urls.length]}${path}`, { 'X-API-KEY': key }, body);
      const text = response.body.toString('utf8');
      return { status: response.status, json: text.length > 0 ? (JSON.parse(text) as unknown) : null };
    } catch {
      if (attempt + 1 >= tries) return { status: 0, json: null };
    }
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ingests a batch until every snapshot is accepted, through the next gateway after a failure. */
async function ingest(stack: RunningStack, batch: Json[], gateway: number): Promise<void> {
  let left = batch;
  for (let attempt = 0; attempt < INGEST_ATTEMPTS && left.length > 0; attempt++) {
    const answer = await call(stack, gateway + attempt, 'POST', '/admin/adverts', stack.adminApiKey, left);
    if (answer.status === 200) {
      const results = (answer.json as IngestAdvertsReply).results;
      left = results.flatMap((result, index) => (result.status === 'accepted' ? [] : [left[index] as Json]));
    }
    if (left.length > 0) await pause(500);
  }
  if (left.length > 0) throw new Error(`${left.length} snapshots still refused after ${INGEST_ATTEMPTS} attempts`);
}

async function allPages<T>(stack: RunningStack, key: string, path: string, perPage: number): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const separator = path.includes('?') ? '&' : '?';
    const answer = await call(stack, page, 'GET', `${path}${separator}page=${page}&itemsPerPage=${perPage}`, key);
    if (answer.status !== 200) throw new Error(`GET ${path} page ${page} answered ${answer.status}`);
    const collection = answer.json as { 'hydra:member': T[]; 'hydra:totalItems': number };
    items.push(...collection['hydra:member']);
    if (collection['hydra:member'].length === 0 || items.length >= collection['hydra:totalItems']) return items;
  }
}

export async function runTopologyScenario(options: RunOptions): Promise<RunObservations> {
  const { stack, receiver, input } = options;
  const log = options.log ?? (() => undefined);
  const key = stack.apiKey;
  const searchIds = new Map<string, string>();
  for (const [i, search] of input.searches.entries()) {
    const answer = await call(stack, i, 'POST', '/searches', key, search.body);
    if (answer.status !== 201) throw new Error(`POST /searches answered ${answer.status}: ${JSON.stringify(answer.json)}`);
    searchIds.set((answer.json as SearchRecord).id, search.title);
  }
  log(`${searchIds.size} searches saved`);

  const all = input.phases.flat();
  const half = Math.floor(all.length / 2);
  let sent = 0;
  let broken = false;
  for (const [phase, snapshots] of input.phases.entries()) {
    for (let first = 0; first < snapshots.length; first += BATCH) {
      const batch = snapshots.slice(first, first + BATCH);
      // Two batches at once, one per gateway, as two crawlers would send them.
      const next = snapshots.slice(first + BATCH, first + 2 * BATCH);
      await Promise.all([ingest(stack, batch, 0), next.length > 0 ? ingest(stack, next, 1) : Promise.resolve()]);
      first += next.length > 0 ? BATCH : 0;
      sent += batch.length + next.length;
      if (!broken && sent >= half && options.midRun) {
        broken = true;
        await options.midRun();
      }
    }
    log(`phase ${phase + 1}: ${snapshots.length} snapshots accepted`);
    // Each phase's changes are alerted before the next phase changes the same goods again.
    await settle(receiver, 4000, 60_000);
  }
  await settle(receiver, 5000, options.settleTimeoutMs ?? 120_000, options.expectedNotifications, searchIds);

  const notifications = new Map<string, string[]>();
  const postsByWebhookId = new Map<string, number>();
  const priceEventsInArrivalOrder = new Map<string, number[]>();
  for (const webhook of receiver.received) {
    const id = String(webhook.headers['webhook-id']);
    postsByWebhookId.set(id, (postsByWebhookId.get(id) ?? 0) + 1);
    if ((postsByWebhookId.get(id) ?? 0) > 1) continue;
    const meaning = meaningOf(webhook, searchIds);
    notifications.set(meaning.key, [...(notifications.get(meaning.key) ?? []), id]);
    if (meaning.price !== null) {
      const series = `${meaning.search}|${meaning.property}`;
      priceEventsInArrivalOrder.set(series, [...(priceEventsInArrivalOrder.get(series) ?? []), meaning.price]);
    }
  }

  // A listings replica that was frozen or killed catches up with the log in a few seconds: what
  // follows is read once every replica answers alike (a replica that never does fails below).
  const convergedAfterMs = await untilListingsReplicasAgree(stack, key);
  log(`listings replicas agreed ${convergedAfterMs} ms after the alerts settled`);
  const properties = await allPages<PropertyDocument>(stack, key, '/documents/properties?includedSites[]=topo&includedSites[]=topo-bis&order[createdAt]=asc', 30);
  const groupings = properties.map((property) => property.adverts.map((advert) => advert.url).sort().join(' ')).sort();

  const queryAnswers = await askedAgain(stack, key, 30);

  const deliveries = new Map<string, DeliveryView>();
  for (const searchId of searchIds.keys()) {
    for (const delivery of await allPages<DeliveryView>(stack, key, `/searches/${searchId}/deliveries`, 100)) deliveries.set(delivery.id, delivery);
  }
  const missingFromDeliveryLog = [...postsByWebhookId].filter(([id, posts]) => (deliveries.get(id)?.attempts.length ?? 0) < posts).map(([id]) => id);
  const duplicates = [...postsByWebhookId]
    .filter(([, posts]) => posts > 1)
    .map(([id]) => ({
      id,
      arrivedAtMs: receiver.received.filter((webhook) => webhook.headers['webhook-id'] === id).map((webhook) => webhook.atMs),
      attempts: deliveries.get(id)?.attempts ?? [],
    }));
  const matchesListed = (await allPages<{ '@id': string }>(stack, key, '/matches?order[createdAt]=asc', 30)).map((match) => match['@id']).sort();
  const matchesNotified = [...new Set(receiver.received.map((webhook) => JSON.parse(webhook.body) as Json).filter((body) => body['@type'] === 'Match').map((body) => String(body['@id'])))].sort();
  return { notifications, postsByWebhookId, priceEventsInArrivalOrder, groupings, queryAnswers, missingFromDeliveryLog, matchesListed, matchesNotified, searchIds, duplicates };
}

const PROBE = '/documents/properties?includedSites[]=topo&transactionType=0&propertyTypes[]=1&order[price]=asc&itemsPerPage=20';

/** The distinct answers (total and page) to one query asked `times` times, through every gateway in turn. */
async function askedAgain(stack: RunningStack, key: string, times: number): Promise<Set<string>> {
  const answers = new Set<string>();
  for (let i = 0; i < times; i++) {
    const answer = await call(stack, i, 'GET', PROBE, key);
    const page = answer.json as { 'hydra:totalItems': number; 'hydra:member': PropertyDocument[] };
    answers.add(answer.status === 200 ? `${page['hydra:totalItems']}: ${page['hydra:member'].map((property) => property.uuid).join(',')}` : `status ${answer.status}`);
  }
  return answers;
}

/** How long until ten askings of the probe query give one answer (at most a minute). */
async function untilListingsReplicasAgree(stack: RunningStack, key: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 60_000 && (await askedAgain(stack, key, 10)).size > 1) await pause(1000);
  return Date.now() - started;
}

/**
 * Waits until no webhook has arrived for `quietMs` (and, when given, until at least `expected`
 * distinct notifications are in), or the timeout.
 */
async function settle(receiver: WebhookReceiver, quietMs: number, timeoutMs: number, expected?: number, searchIds?: Map<string, string>): Promise<void> {
  const until = Date.now() + timeoutMs;
  const distinct = () => new Set(receiver.received.map((webhook) => meaningOf(webhook, searchIds ?? new Map()).key)).size;
  for (;;) {
    const last = receiver.received[receiver.received.length - 1]?.atMs ?? 0;
    const quiet = Date.now() - last >= quietMs;
    if (quiet && (expected === undefined || distinct() >= expected)) return;
    if (Date.now() > until) return;
    await pause(250);
  }
}

function meaningOf(webhook: ReceivedWebhook, searchIds: Map<string, string>): { key: string; search: string; property: string; price: number | null } {
  const body = JSON.parse(webhook.body) as Json;
  const match = (body['@type'] === 'Match' ? body : body['match']) as Json;
  const searchId = String(match['search']).replace('/searches/', '');
  const search = searchIds.get(searchId) ?? searchId;
  const property = String(match['property']).replace('/documents/properties/', '');
  if (body['@type'] === 'Match') return { key: `match|${search}|${property}`, search, property, price: null };
  const adEvent = body['adEvent'] as Json;
  const price = Number(adEvent['fieldNewValue']);
  return { key: `${String(body['event'])}|${search}|${property}|${String(adEvent['fieldNewValue'])}`, search, property, price: Number.isFinite(price) ? price : null };
}
