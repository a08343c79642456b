/**
 * `npm run tour`: the product's point in under a minute, against a running stack. It saves a
 * search with notifications on and no endpoint, watches the search's live stream, ingests a new
 * flat the search matches and then a price drop of it, and shows each notification arriving with
 * the time it took from the ingestion request. With the local inbox of `npm start`, it then shows
 * the alert e-mail listing both facts arriving there. Each step first prints the curl command that
 * does the same, so the reader can repeat it by hand; the search is deleted at the end, whatever
 * happens.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { parseSseBlock, type EventPayload, type IngestAdvertsReply, type MatchPayload, type SearchRecord, type SseMessage } from '@immo/contracts';

export interface TourOptions {
  baseUrl: string;
  apiKey: string;
  adminApiKey: string;
  out: (line: string) => void;
  /** How long each notification (and each HTTP answer) may take; 15 s by default. */
  timeoutMs?: number;
  /** The data directory named in the line that tells how to set the keys; `.data` by default. */
  dataDir?: string;
  /** Aborting it (Ctrl-C) stops the tour early; the search is still deleted. */
  signal?: AbortSignal;
  /** The local inbox's web page (MailDev), where the search's e-mail is shown arriving; null: no e-mail step. */
  inboxUrl?: string | null;
  /** How long the e-mail may take (the batch window and more); 60 s by default. */
  emailTimeoutMs?: number;
}

export interface TourResult {
  matchLatencyMs: number;
  eventLatencyMs: number;
  /** From the price drop's ingestion to the e-mail in the inbox; null without an inbox. */
  emailLatencyMs: number | null;
}

/** A failure the tour explains in one line (the stack is down, a key is refused, an alert is late). */
export class TourError extends Error {
  override name = 'TourError';
}

const DEFAULT_TIMEOUT_MS = 15_000;
const HEALTH_TIMEOUT_MS = 5_000;
const START_THE_STACK = 'start the stack with npm start';
/** The price drop: 5 %, enough to read at a glance. */
const DROP = 0.05;
const EMAIL_TIMEOUT_MS = 60_000;

export async function runTour(options: TourOptions): Promise<TourResult> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const dataDir = options.dataDir ?? '.data';
  const { out, signal } = options;
  const http = new Api(base, timeoutMs, signal);

  // Before any output: with no stack, the one line that says what to do is all the reader sees.
  await checkReady(base, signal);
  out('Immo Alerts tour: a saved search hears of a new flat, then of its price drop, live.');
  out(`stack      ${base} (ready: curl ${shellWord(`${base}/health/ready`)})`);
  out('To run the commands below yourself, set the keys first:');
  out(`  export API_KEY=$(cat ${dataDir}/api-key) ADMIN_KEY=$(cat ${dataDir}/admin-api-key)`);

  const searchBody = {
    title: 'Tour: flats for sale in Lyon',
    transactionType: 0,
    propertyTypes: [0],
    includedCities: ['/cities/69123'],
    notificationEnabled: true,
    subscribedEvents: ['ad.update.price'],
    notificationRecipient: 'tour@example.org',
  };
  step(out, 1, 'Save a search: flats for sale in Lyon, notifications on, price drops subscribed, no endpoint, e-mails to tour@example.org');
  command(out, [`curl -X POST -H "X-API-KEY: $API_KEY" -H 'content-type: application/json' \\`, `--data ${shellWord(JSON.stringify(searchBody))} \\`, shellWord(`${base}/searches`)]);
  const created = await http.send('POST', '/searches', options.apiKey, 'API_KEY', searchBody);
  expectStatus(created, 201, 'POST /searches');
  const search = created.body as SearchRecord;
  fact(out, 'search', `${search['@id']} "${search.title}"`);

  let stream: LiveStreamClient | null = null;
  let result: TourResult;
  let cleanupProblem: string | null = null;
  try {
    const streamPath = `/searches/${search.id}/stream`;
    step(out, 2, "Watch the search's live stream (Server-Sent Events: with no endpoint, alerts go only here)");
    command(out, [`curl -N -H "X-API-KEY: $API_KEY" ${shellWord(base + streamPath)}`]);
    stream = await LiveStreamClient.open(base + streamPath, options.apiKey, timeoutMs, signal);
    fact(out, 'stream', 'open, waiting for notifications');

    // Unique per run, so the advert is new whatever was ingested before; the run's time is in it.
    const reference = `TOUR-${compactTime(new Date())}-${Math.random().toString(16).slice(2, 6)}`;
    const snapshot = tourSnapshot(reference);
    const url = snapshot.url;
    const isOurs = (document: MatchPayload['propertyDocument'] | undefined) => document?.adverts?.some((advert) => advert.url === url) === true;

    step(out, 3, 'A crawler sends a new flat in Lyon that the search matches');
    const match = await ingestAndWait(out, http, base, options.adminApiKey, snapshot, stream, 'the match', (message) => {
      if (message.event !== 'match') return null;
      const payload = parseJson<MatchPayload>(message.data);
      return payload && isOurs(payload.propertyDocument) ? payload : null;
    });
    const document = match.payload.propertyDocument;
    fact(out, 'received', `event: match, ${match.latencyMs} ms after the ingestion request`);
    fact(out, 'title', document.title);
    fact(out, 'price', `${euros(document.price)} €`);
    fact(out, 'city', document.city ? `${document.city.name} (${document.city.zipcode ?? document.city.insee})` : '(none)');
    fact(out, 'match', match.payload['@id']);

    const dropped = { ...snapshot, price: Math.round(snapshot.price * (1 - DROP)), seenAt: new Date().toISOString() };
    const droppedAt = performance.now();
    step(out, 4, `The same advert seen again ${DROP * 100} % cheaper: a price drop`);
    const drop = await ingestAndWait(out, http, base, options.adminApiKey, dropped, stream, 'the ad.update.price event', (message) => {
      if (message.event !== 'ad.update.price') return null;
      const payload = parseJson<EventPayload>(message.data);
      return payload && isOurs(payload.match?.propertyDocument) ? payload : null;
    });
    const adEvent = drop.payload.adEvent;
    fact(out, 'received', `event: ad.update.price, ${drop.latencyMs} ms after the ingestion request`);
    fact(out, adEvent.fieldName, `${euros(adEvent.fieldOldValue)} → ${euros(adEvent.fieldNewValue)} (${adEvent.percentVariation} %)`);
    fact(out, 'match', drop.payload.match['@id']);

    let emailLatencyMs: number | null = null;
    if (options.inboxUrl) {
      const inbox = options.inboxUrl.replace(/\/+$/, '');
      step(out, 5, `The alert e-mail: both facts in one e-mail (batched), in the local inbox ${inbox}`);
      const email = await waitForEmail(inbox, reference, options.emailTimeoutMs ?? EMAIL_TIMEOUT_MS, signal);
      emailLatencyMs = Math.round(performance.now() - droppedAt);
      fact(out, 'received', `${emailLatencyMs} ms after the price drop's ingestion request (the batch window: MAIL_BATCH_WINDOW_MS)`);
      fact(out, 'subject', email.subject);
      fact(out, 'to', email.to.map((to) => to.address).join(', '));
      fact(out, 'see it', `${inbox} (it has a one-click unsubscribe link)`);
    }
    result = { matchLatencyMs: match.latencyMs, eventLatencyMs: drop.latencyMs, emailLatencyMs };
  } finally {
    stream?.close();
    step(out, options.inboxUrl ? 6 : 5, 'Delete the search');
    command(out, [`curl -X DELETE -H "X-API-KEY: $API_KEY" ${shellWord(`${base}/searches/${search.id}`)}`]);
    // Its own deadline and no abort signal: Ctrl-C must not cancel the clean-up it asked for.
    const cleanup = new Api(base, timeoutMs, undefined);
    try {
      const deleted = await cleanup.send('DELETE', `/searches/${search.id}`, options.apiKey, 'API_KEY');
      if (deleted.status === 204 || deleted.status === 404) fact(out, 'deleted', `${search['@id']} (${deleted.status})`);
      else cleanupProblem = `DELETE ${search['@id']} answered ${deleted.status}: ${summary(deleted.text)}`;
    } catch (error) {
      cleanupProblem = `DELETE ${search['@id']} failed: ${messageOf(error)}`;
    }
    if (cleanupProblem !== null) fact(out, 'kept', `${cleanupProblem}; run the command above to delete it`);
    out('');
  }
  // Reached only when the tour itself succeeded (its own failure is the one reported otherwise):
  // a search left behind is then a failure too.
  if (cleanupProblem !== null) throw new TourError(cleanupProblem);
  return result;
}

/** The tour's closing line, for callers that want it (the CLI prints it on success). */
export function summaryLine(result: TourResult): string {
  const email = result.emailLatencyMs === null ? '' : ` The e-mail listing both reached the inbox ${result.emailLatencyMs} ms after the price drop.`;
  return `Done: the match arrived ${result.matchLatencyMs} ms and the price drop ${result.eventLatencyMs} ms after their ingestion requests.${email}`;
}

interface InboxEmail {
  subject: string;
  to: { address: string }[];
  html?: string;
}

/** The first e-mail in the inbox (MailDev's API) that names the tour's advert. */
async function waitForEmail(inbox: string, reference: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<InboxEmail> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (signal?.aborted) throw new TourError('interrupted');
    try {
      const emails = (await (await fetch(`${inbox}/api/email`, { signal: deadline(5_000, signal) })).json()) as InboxEmail[];
      const ours = emails.find((email) => (email.html ?? '').includes(reference));
      if (ours) return ours;
    } catch (error) {
      if (signal?.aborted) throw new TourError('interrupted');
      throw new TourError(`the local inbox ${inbox} does not answer (${messageOf(error)}); is the stack still running?`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new TourError(`no e-mail of the tour reached ${inbox} within ${Math.round(timeoutMs / 1000)} s (MAIL_BATCH_WINDOW_MS longer than that?)`);
}

/** A snapshot as a crawler sends it: the fields that matter here, the rest optional (see advert-snapshot.example.json). */
function tourSnapshot(reference: string) {
  return {
    site: 'tour.example',
    siteCategory: 'portal',
    url: `https://tour.example/annonces/${reference}`,
    reference,
    publisher: { name: 'Agence du Tour (synthetic)', category: 'agency', type: 1 },
    title: `Appartement 3 pièces 71 m² - Lyon 3e (${reference})`,
    description: 'Annonce synthétique (npm run tour), 23e étage.',
    price: 289_000,
    surface: 71.3,
    room: 3,
    // A high floor and an A rating: no demo flat has both, so the advert founds its own property
    // (a good the stack already knows would not be a new match).
    floor: 23,
    energy: { category: 'A', value: 48 },
    propertyType: 0,
    transactionType: 0,
    location: { lat: 45.7611, lon: 4.8587, accuracy: 1 },
    commune: { insee: '69123', zipcode: '69003', name: 'Lyon' },
    seenAt: new Date().toISOString(),
  };
}

interface Arrival<T> {
  payload: T;
  latencyMs: number;
}

async function ingestAndWait<T>(
  out: (line: string) => void,
  http: Api,
  base: string,
  adminApiKey: string,
  snapshot: Record<string, unknown>,
  stream: LiveStreamClient,
  what: string,
  recognise: (message: ReceivedSseMessage) => T | null,
): Promise<Arrival<T>> {
  command(out, [`curl -X POST -H "X-API-KEY: $ADMIN_KEY" -H 'content-type: application/json' \\`, `--data ${shellWord(JSON.stringify([snapshot]))} \\`, shellWord(`${base}/admin/adverts`)]);
  const sentAt = performance.now();
  const answer = await http.send('POST', '/admin/adverts', adminApiKey, 'ADMIN_API_KEY', [snapshot]);
  expectStatus(answer, 200, 'POST /admin/adverts');
  const result = (answer.body as IngestAdvertsReply).results[0];
  if (!result) throw new TourError(`POST /admin/adverts answered no result: ${summary(answer.text)}`);
  if (result.status === 'rejected') {
    throw new TourError(`the advert was rejected: ${result.violations.map((v) => `${v.propertyPath} ${v.message}`).join('; ')}`);
  }
  if (result.events.length === 0) throw new TourError(`the advert changed nothing (${snapshot['reference']} was already ingested with these values)`);
  fact(out, 'ingested', `advert ${result.advertId}, property ${result.propertyId ?? '(none)'}`);

  let skipped = 0;
  const message = await stream.waitFor(what, (candidate) => {
    const payload = recognise(candidate);
    if (payload === null) skipped++;
    return payload !== null;
  });
  // Another ingestion may be under way (the demo load of a first `npm start`): its alerts are not ours.
  if (skipped > 0) fact(out, 'skipped', `${skipped} notification(s) of other adverts ingested meanwhile`);
  return { payload: recognise(message) as T, latencyMs: Math.max(0, Math.round(message.receivedAt - sentAt)) };
}

async function checkReady(base: string, signal: AbortSignal | undefined): Promise<void> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${base}/health/ready`, { signal: deadline(HEALTH_TIMEOUT_MS, signal) });
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw new TourError('interrupted');
    throw new TourError(`nothing answers at ${base} (${messageOf(error)}): ${START_THE_STACK}`);
  }
  if (response.status !== 200) {
    throw new TourError(`the stack at ${base} is not ready (${response.status} ${summary(text)}): wait for npm start to finish, or ${START_THE_STACK}`);
  }
}

interface Answer {
  status: number;
  body: unknown;
  text: string;
  keyName: string;
}

/** JSON over fetch with the tour's deadline and Ctrl-C, turning transport errors into one-line messages. */
class Api {
  constructor(
    private readonly base: string,
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async send(method: string, path: string, key: string, keyName: string, body?: unknown): Promise<Answer> {
    try {
      const response = await fetch(this.base + path, {
        method,
        headers: { 'X-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: deadline(this.timeoutMs, this.signal),
      });
      const text = await response.text();
      return { status: response.status, body: parseJson<unknown>(text), text, keyName };
    } catch (error) {
      if (this.signal?.aborted) throw new TourError('interrupted');
      throw new TourError(`${method} ${path} failed (${messageOf(error)}); is the stack still running? Otherwise ${START_THE_STACK}`);
    }
  }
}

function expectStatus(answer: Answer, expected: number, what: string): void {
  if (answer.status === expected) return;
  if (answer.status === 401 || answer.status === 403) {
    throw new TourError(`${what} answered ${answer.status}: the stack refused the key in ${answer.keyName} (or DATA_DIR); use the keys of the stack you are running`);
  }
  throw new TourError(`${what} answered ${answer.status}: ${summary(answer.text)}`);
}

interface ReceivedSseMessage extends SseMessage {
  /** performance.now() when the message was read off the socket: the end of the measured latency. */
  receivedAt: number;
}

/** A minimal EventSource over node:http(s): messages are queued as they arrive, then taken in order. */
class LiveStreamClient {
  private readonly queue: ReceivedSseMessage[] = [];
  private wake: (() => void) | null = null;
  private ended: string | null = null;

  private constructor(
    private readonly request: ClientRequest,
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  static open(url: string, apiKey: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<LiveStreamClient> {
    return new Promise((resolve, reject) => {
      const send = url.startsWith('https:') ? httpsRequest : httpRequest;
      const request = send(url, { headers: { accept: 'text/event-stream', 'X-API-KEY': apiKey } });
      const client = new LiveStreamClient(request, timeoutMs, signal);
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      const onAbort = () => request.destroy(new Error('interrupted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      request.once('response', (response: IncomingMessage) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (response.statusCode !== 200) {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => reject(new TourError(`GET the live stream answered ${response.statusCode}: ${summary(text)}`)));
          return;
        }
        client.read(response);
        resolve(client);
      });
      request.once('error', (error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) reject(new TourError('interrupted'));
        else reject(new TourError(`the live stream could not be opened: ${messageOf(error)}`));
        client.finish(messageOf(error));
      });
      request.end();
    });
  }

  /** The first message `accept` takes, skipping the others; bounded by the tour's timeout. */
  async waitFor(what: string, accept: (message: ReceivedSseMessage) => boolean): Promise<ReceivedSseMessage> {
    const until = performance.now() + this.timeoutMs;
    for (;;) {
      const message = this.queue.shift();
      if (message) {
        if (accept(message)) return message;
        continue;
      }
      if (this.signal?.aborted) throw new TourError('interrupted');
      if (this.ended !== null) throw new TourError(`the live stream ended before ${what} arrived (${this.ended})`);
      const left = until - performance.now();
      if (left <= 0) {
        throw new TourError(`gave up: ${what} did not arrive on the live stream within ${Math.round(this.timeoutMs / 1000)} s (the services' logs are under DATA_DIR/logs)`);
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.signal?.removeEventListener('abort', done);
          this.wake = null;
          resolve();
        };
        const timer = setTimeout(done, left);
        this.signal?.addEventListener('abort', done, { once: true });
        this.wake = done;
      });
    }
  }

  close(): void {
    this.finish('closed');
    this.request.destroy();
  }

  private read(response: IncomingMessage): void {
    let buffer = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      const receivedAt = performance.now();
      buffer += chunk.replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const message = parseSseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (message) this.queue.push({ ...message, receivedAt });
      }
      this.wake?.();
    });
    response.on('end', () => this.finish('the server closed it'));
    response.on('error', (error) => this.finish(messageOf(error)));
  }

  private finish(reason: string): void {
    this.ended ??= reason;
    this.wake?.();
  }
}

function step(out: (line: string) => void, n: number, title: string): void {
  out('');
  out(`${n}. ${title}`);
}

/** A curl command, its continuation lines indented under it. */
function command(out: (line: string) => void, parts: string[]): void {
  parts.forEach((part, i) => out(i === 0 ? `   $ ${part}` : `       ${part}`));
}

function fact(out: (line: string) => void, label: string, value: string): void {
  out(`   ${label.padEnd(10)} ${value}`);
}

/** Quoted for a POSIX shell only when it needs to be (URLs usually do not). */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function deadline(ms: number, signal: AbortSignal | undefined): AbortSignal {
  return signal ? AbortSignal.any([AbortSignal.timeout(ms), signal]) : AbortSignal.timeout(ms);
}

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/** 289000 → "289 000" (a plain space: terminals and logs show it as one). */
function euros(value: number | string): string {
  const amount = Number(value);
  if (!Number.isFinite(amount)) return String(value);
  return String(Math.round(amount)).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

/** 2026-03-01T10:15:00.123Z → 20260301-101500123. */
function compactTime(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').replace('.', '').replace('Z', '');
}

function summary(text: string): string {
  const body = parseJson<{ detail?: unknown }>(text);
  const detail = body && typeof body === 'object' && typeof body.detail === 'string' ? body.detail : text;
  const line = detail.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line || '(empty body)';
}

/**
 * fetch hides the reason in `cause` (ECONNREFUSED…); a timeout is named as one. Read by shape, not
 * `instanceof Error`: fetch's errors come from Node's own realm, which is not Jest's.
 */
function messageOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { name, message, cause } = error as { name?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  if (name === 'TimeoutError') return 'no answer in time';
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string' && cause.message) return cause.message;
  return typeof message === 'string' && message ? message : String(error);
}
