import { Logger } from '@nestjs/common';
import { eventLoopSlice, KeyedSerializer, withRequestId } from '@immo/service-kit';
import { WrongExpectedVersionError, type EventStore } from '@immo/event-store';
import { validateSnapshot, type AdvertSnapshot, type IngestAdvertsReply, type IngestItemResult } from '@immo/contracts';
import {
  advertIdOf,
  advertStreamName,
  bucketKeyOf,
  communeOf,
  decide,
  decideAssignment,
  decideExpiry,
  evolve,
  fromRecordedEvent,
  replay,
  toEventData,
  type AdvertDomainEvent,
  type AdvertState,
  type PropertyMatcher,
} from '../domain';
import type { GeoLookup } from '../geo/geo-directory.client';
import { type AdmittedAppend, ProjectionLagError, type ProjectionLagLimit } from './projection-lag-limit';

const MAX_ATTEMPTS = 4;
/**
 * Recently written advert states, to decide the next snapshot without reading the stream back.
 * The projection runs at most 2,000 appends behind (the lag limit), so an older state is already
 * in the advert-states read model; a larger cache would only hold whole states on the heap.
 */
const WRITE_CACHE_SIZE = 2_000;
const CONCURRENCY = 64;
/**
 * How long a batch may take, by default, before what is left of it is answered "retry later".
 * Each append waits at most the lag limit's own time for the projection, but the adverts of one
 * grouping bucket take their turns one after another, so a slow projection made a whole batch
 * outlast the gateway's 15 s: the crawler got 504 for a batch whose appends went on, and did not
 * know which snapshots were stored. Within its time a batch is answered item by item.
 */
export const BATCH_TIME_MS = 10_000;
/**
 * How long after its deadline a batch still waits for appends already under way. The deadline
 * is checked before each append, but an append the event store is slow to acknowledge, or the
 * read-ahead and commune look-ups before the first one, can outlast it: past this, the batch is
 * answered anyway, and what is left of it is "retry later" (an append under way may still land;
 * a resent snapshot then comes back unchanged). 10 s plus this stays under the 12 s a forwarded
 * batch is given and the gateway's 15 s.
 */
export const IN_FLIGHT_GRACE_MS = 1_500;

/** Whether `work` settled by `deadline` (epoch ms); it goes on either way. */
async function settlesBy(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))));
  const settled = work.then(() => true);
  // A failure before the deadline is raised below; one after it has no caller left to tell.
  settled.catch(() => undefined);
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Raised for an item not stored before its batch's deadline: the caller retries it later. */
/** This instance cannot be sure it still leads ingestion (see `IngestionLease.surelyHeld`): another may. */
export class NotLeadingError extends Error {
  constructor() {
    super('this instance no longer surely leads ingestion');
  }
}

export class BatchDeadlineError extends Error {
  constructor() {
    super(`the batch was not stored within ${BATCH_TIME_MS / 1000} s`);
  }
}

interface Current {
  state: AdvertState | null;
  /** Last revision of the stream, -1 when it does not exist. */
  revision: number;
  /**
   * Global position of the event at `revision`, when known: the append then needs no look-up of
   * the stream's head (see `AppendOptions.lastPosition`).
   */
  position?: number;
}

type Outcome = { advertId: string; propertyId: string | null; events: string[] };

/** Snapshots ingested by this process, by outcome (for metrics). */
export interface IngestionCounters {
  /** Accepted, with events appended. */
  changed: number;
  /** Accepted, nothing new to append. */
  unchanged: number;
  /** Invalid, or could not be stored (retry later). */
  rejected: number;
}

/**
 * An advert's state as the advert-states projection last applied it (committed or not), or null
 * when the advert was never projected. It may lag behind the log: an append decided on a stale
 * state fails its revision check, and the decision is taken again on the stream's own events.
 */
export type ProjectedAdvertLookup = (advertId: string) => Promise<Current | null>;

/** A valid snapshot of a batch, on its way to being appended. */
interface WorkItem {
  index: number;
  snapshot: AdvertSnapshot;
  advertId: string;
  warnings: string[];
}

/**
 * Told the adverts a batch is about to ingest, so that what their ingestion and projection read
 * (their states, their properties' documents) is fetched together beforehand; resolves when it is.
 */
export type AdvertReadAhead = (advertIds: string[]) => Promise<void>;

/** One batch's terms: when its answer is due, and the request id it came with. */
export interface BatchOptions {
  deadline?: number;
  requestId?: string | null;
}

export interface IngestionOptions {
  now?: () => Date;
  /** Where to find an advert's state before reading its stream (see `ProjectedAdvertLookup`). */
  projected?: ProjectedAdvertLookup;
  readAhead?: AdvertReadAhead;
  /** Holds appends while the projection is too far behind. */
  lagLimit?: ProjectionLagLimit;
  /**
   * Whether this instance surely still leads ingestion, asked right before each append: a leader
   * that stalled past its lease must not go on appending its batches while another leads (grouping
   * across adverts is not guarded by their streams' revisions). Always, without one.
   */
  leading?: () => boolean;
}

/**
 * Turns advert snapshots into advert events: validate, resolve the commune, compare with the
 * advert's current state, append only what changed with the expected revision, and record the
 * property assignment of a new advert in the same commit.
 */
export class IngestionService {
  private readonly logger = new Logger('Ingestion');
  /** Recently written advert states (insertion-ordered: the oldest is evicted first). */
  private readonly written = new Map<string, Current>();
  private readonly serializer = new KeyedSerializer();
  private lastPosition: number | null = null;
  readonly counters: IngestionCounters = { changed: 0, unchanged: 0, rejected: 0 };

  private readonly now: () => Date;
  private readonly projected: ProjectedAdvertLookup | null;
  private readonly lagLimit: ProjectionLagLimit | null;
  private readonly readAhead: AdvertReadAhead | null;
  private readonly leading: () => boolean;

  constructor(
    private readonly eventStore: EventStore,
    private readonly geo: GeoLookup,
    private readonly matcher: PropertyMatcher,
    options: IngestionOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.projected = options.projected ?? null;
    this.lagLimit = options.lagLimit ?? null;
    this.readAhead = options.readAhead ?? null;
    this.leading = options.leading ?? (() => true);
  }

  /** Global position of the latest commit this instance appended (projection lag is measured against it). */
  get lastAppendedPosition(): number | null {
    return this.lastPosition;
  }

  /**
   * Stores what is new in each snapshot; `deadline` (epoch ms) is when the caller needs the answer:
   * snapshots whose append has not started by then are answered "retry later" and never appended
   * after; the answer comes at most `IN_FLIGHT_GRACE_MS` later, whatever is still under way.
   * `requestId` (the batch's) goes into the log lines and geo requests made for the batch.
   */
  async ingest(items: unknown[], { deadline = Date.now() + BATCH_TIME_MS, requestId = null }: BatchOptions = {}): Promise<IngestAdvertsReply> {
    const now = this.now();
    const results: IngestItemResult[] = new Array(items.length);
    const work: WorkItem[] = [];
    for (const [index, item] of items.entries()) {
      const validation = validateSnapshot(item, now);
      // A valid snapshot has a reference or a url: its advert id is known from here on.
      if (validation.ok) work.push({ index, snapshot: validation.snapshot, advertId: advertIdOf(validation.snapshot), warnings: [] });
      else results[index] = { index, status: 'rejected', advertId: null, violations: validation.violations };
      const due = eventLoopSlice.yieldIfSpent();
      if (due) await due;
    }

    const stored = await settlesBy(this.store(work, results, { deadline, requestId, size: items.length }), deadline + IN_FLIGHT_GRACE_MS);
    // Answered from what is known now: items still under way are told to retry, whatever they do next.
    const answered = results.slice();
    let unanswered = 0;
    for (const item of work) {
      if (answered[item.index] !== undefined) continue;
      unanswered++;
      answered[item.index] = {
        index: item.index,
        status: 'rejected',
        advertId: item.advertId,
        violations: [{ propertyPath: '(item)', message: 'not stored within the batch time (it may still be); retry later: resending it is safe' }],
      };
    }
    if (!stored) this.logger.warn(withRequestId(`${unanswered} of ${items.length} snapshots still under way ${IN_FLIGHT_GRACE_MS} ms after the batch's deadline: answered "retry later"`, requestId));

    const accepted = answered.filter((r) => r.status === 'accepted');
    const reply: IngestAdvertsReply = {
      accepted: accepted.length,
      rejected: answered.length - accepted.length,
      unchanged: accepted.filter((r) => r.status === 'accepted' && r.events.length === 0).length,
      results: answered,
    };
    this.counters.changed += reply.accepted - reply.unchanged;
    this.counters.unchanged += reply.unchanged;
    this.counters.rejected += reply.rejected;
    return reply;
  }

  /** Resolves the batch's communes, then appends what is new in each item; fills `results` item by item. */
  private async store(work: WorkItem[], results: IngestItemResult[], batch: { deadline: number; requestId: string | null; size: number }): Promise<void> {
    const { deadline, requestId } = batch;
    // Alongside the communes' round trip to geo, not after it. Only an optimisation: a failed one
    // leaves the reads to fetch what they need.
    const readingAhead = this.readAhead?.(this.advertsToRead(work)).catch(() => undefined);
    const [resolved] = await Promise.all([this.resolveCommunes(work, results, requestId), readingAhead]);

    const queue = resolved.values();
    let postponed = 0;
    const worker = async () => {
      for (let step = queue.next(); !step.done; step = queue.next()) {
        const item = step.value;
        const key = bucketKeyOf({ transactionType: item.snapshot.transactionType, propertyType: item.snapshot.propertyType, commune: communeOf(item.snapshot.commune) });
        try {
          const outcome = await this.serializer.run(key, () => this.applySnapshot(item.snapshot, item.advertId, deadline));
          results[item.index] = { index: item.index, status: 'accepted', ...outcome, warnings: item.warnings };
          // Appends acknowledged together resume together: keep each run of them short.
          const due = eventLoopSlice.yieldIfDue();
          if (due) await due;
        } catch (error) {
          // Running out of time (the batch's or the projection's) is load, not a fault: said once per batch below.
          if (error instanceof BatchDeadlineError || error instanceof ProjectionLagError || error instanceof NotLeadingError) postponed++;
          else this.logger.error(withRequestId(`snapshot ${item.index} failed: ${String(error)}`, requestId));
          results[item.index] = {
            index: item.index,
            status: 'rejected',
            advertId: item.advertId,
            violations: [{ propertyPath: '(item)', message: `could not be stored, retry later: ${error instanceof Error ? error.message : String(error)}` }],
          };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, resolved.length) }, worker));
    if (postponed > 0) this.logger.warn(withRequestId(`${postponed} of ${batch.size} snapshots answered "retry later": the projection is behind`, requestId));
  }

  /** The batch's adverts whose state is not among those this instance wrote lately. */
  private advertsToRead(work: readonly WorkItem[]): string[] {
    const ids = new Set<string>();
    for (const { advertId } of work) if (!this.written.has(advertId)) ids.add(advertId);
    return [...ids];
  }

  /** Appends the expiry of adverts whose announced `expiredAt` has passed without a new crawl. */
  async expireDue(states: Iterable<Pick<AdvertState, 'uuid' | 'expired' | 'expiresAt' | 'transactionType' | 'propertyType' | 'commune'>>): Promise<number> {
    const now = this.now();
    let expired = 0;
    for (const candidate of states) {
      if (candidate.expired || candidate.expiresAt === null || Date.parse(candidate.expiresAt) > now.getTime()) continue;
      const key = bucketKeyOf(candidate);
      const outcome = await this.serializer.run(key, () =>
        this.appendDecided(candidate.uuid, Number.POSITIVE_INFINITY, (current) => (current.state ? decideExpiry(current.state, now) : [])),
      );
      if (outcome.events.length > 0) expired++;
    }
    return expired;
  }

  /**
   * One geo request per distinct commune in the batch (and cached across batches). When geo does
   * not answer, an INSEE code is taken as given (the projection resolves the city later), but a
   * postal code + name cannot be resolved: that item is rejected with "retry later".
   */
  private async resolveCommunes(work: WorkItem[], results: IngestItemResult[], requestId: string | null): Promise<WorkItem[]> {
    const unresolvable = new Set<number>();
    const resolveOne = async (item: WorkItem): Promise<void> => {
      const commune = item.snapshot.commune;
      try {
        if (commune.insee) {
          const city = await this.geo.cityByInsee(commune.insee, requestId);
          if (!city) item.warnings.push(`commune: unknown INSEE code ${commune.insee}; the city stays unresolved`);
          return;
        }
        if (commune.zipcode && commune.name) {
          const insee = await this.geo.inseeOf(commune.zipcode, commune.name, requestId);
          if (insee) item.snapshot = { ...item.snapshot, commune: { ...commune, insee } };
          else item.warnings.push(`commune: no commune named "${commune.name}" has postal code ${commune.zipcode}; the city stays unresolved`);
        }
      } catch (error) {
        if (commune.insee) return;
        unresolvable.add(item.index);
        results[item.index] = {
          index: item.index,
          status: 'rejected',
          advertId: item.advertId,
          violations: [{ propertyPath: 'commune', message: `cannot be resolved now (geo service: ${error instanceof Error ? error.message : String(error)}); retry later` }],
        };
      }
    };
    // Started one after another, asking the slice in between: a batch of communes the process has
    // not met yet (the first batches after a start) sends a geo request for each, and encoding and
    // publishing hundreds of them in one go held the loop 100 to 170 ms (at 200,000 properties,
    // just after a restart).
    const resolving: Promise<void>[] = [];
    for (const item of work) {
      resolving.push(resolveOne(item));
      const due = eventLoopSlice.yieldIfSpent();
      if (due) await due;
    }
    await Promise.all(resolving);
    return work.filter((item) => !unresolvable.has(item.index));
  }

  private applySnapshot(snapshot: AdvertSnapshot, advertId: string, deadline: number): Promise<Outcome> {
    return this.appendDecided(advertId, deadline, (current) => {
      const events = decide(snapshot, current.state);
      if (events.length === 0) return events;
      // A new advert joins (or founds) a property in the same commit that publishes it.
      const next = events.reduce<AdvertState | null>((state, event) => evolve(state, event), current.state);
      return next && next.propertyId === null ? [...events, ...decideAssignment(next, this.matcher)] : events;
    });
  }

  /**
   * Decides against the advert's current state and appends with its revision; a concurrent
   * writer makes the append fail, and the decision is taken again on the fresh state.
   */
  private async appendDecided(advertId: string, deadline: number, decideEvents: (current: Current) => AdvertDomainEvent[]): Promise<Outcome> {
    let current = this.written.get(advertId) ?? (await this.guess(advertId));
    for (let attempt = 1; ; attempt++) {
      // The concurrent appends resume together when their acknowledgements arrive together:
      // each checks the slice before its share of synchronous work (decide, ids, encoding). It
      // awaits only a turn it is given: \`await undefined\` would defer its work past the checks of
      // the others resumed with it, and all of them would pass their check before any worked.
      const due = eventLoopSlice.yieldIfDue();
      if (due) await due;
      const events = decideEvents(current);
      if (events.length === 0) return { advertId, propertyId: current.state?.propertyId ?? null, events: [] };
      // `events` is not empty, so folding them always yields a state.
      const next = events.reduce<AdvertState | null>((state, event) => evolve(state, event), current.state) as AdvertState;
      let position: number;
      let place: AdmittedAppend | undefined;
      try {
        // Checked before each append, not only before an item starts: an item waits its turn in
        // its grouping bucket, and a retry re-reads the stream.
        if (Date.now() >= deadline) throw new BatchDeadlineError();
        place = await this.lagLimit?.admit(deadline - Date.now());
        // Appends held by the lag limit are released together when a projection commit lands:
        // each asks for the slice again before its encoding and publish, or hundreds of them ran
        // in one turn (a 390 ms stall measured at 240,000 adverts).
        const admitted = eventLoopSlice.yieldIfDue();
        if (admitted) await admitted;
        if (!this.leading()) throw new NotLeadingError();
        const appended = await this.eventStore.append(advertStreamName(advertId), toEventData(advertId, current.revision, events), {
          expectedRevision: current.revision === -1 ? 'no_stream' : current.revision,
          lastPosition: current.position,
        });
        position = appended.position;
        this.lastPosition = Math.max(this.lastPosition ?? 0, position);
        place?.appended(position);
      } catch (error) {
        place?.abandoned();
        if (error instanceof WrongExpectedVersionError && attempt < MAX_ATTEMPTS) {
          current = await this.load(advertId);
          continue;
        }
        throw error;
      }
      this.remember(advertId, { state: next, revision: current.revision + events.length, position });
      if (next.propertyId !== null) this.matcher.track(next);
      return { advertId, propertyId: next.propertyId, events: events.map((event) => event.type) };
    }
  }

  /**
   * The advert's state without reading its stream: the projected state, or "new" when it was never
   * projected. Reading a stream costs a look-up round trip, plus a scan for a stream of several
   * commits; the guess costs nothing when right and one failed append when wrong.
   */
  private async guess(advertId: string): Promise<Current> {
    if (!this.projected) return this.load(advertId);
    return (await this.projected(advertId)) ?? { state: null, revision: -1 };
  }

  private async load(advertId: string): Promise<Current> {
    const recorded = await this.eventStore.readStream(advertStreamName(advertId));
    if (recorded.length === 0) return { state: null, revision: -1 };
    const last = recorded.at(-1);
    return { state: replay(recorded.map(fromRecordedEvent)), revision: last?.revision ?? -1, position: last?.position };
  }

  private remember(advertId: string, current: Current): void {
    this.written.delete(advertId);
    this.written.set(advertId, current);
    if (this.written.size > WRITE_CACHE_SIZE) {
      const oldest = this.written.keys().next().value;
      if (oldest !== undefined) this.written.delete(oldest);
    }
  }
}
