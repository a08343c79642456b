/**
 * Attempts deliveries: each pending delivery that is due gets one signed POST, through its host's
 * circuit breaker, and its outcome is recorded before anything else happens to it. A new delivery
 * is attempted at once; retries and deliveries deferred by an open breaker are found by a
 * periodic scan of the ledger, which also picks up, after a restart, the deliveries a crash
 * interrupted (attempted again with the same `webhook-id`).
 *
 * Replicas sharing one ledger (MongoDB) all scan it, so a delivery is claimed before it is
 * attempted: a write of its next revision that pushes its due time past the attempt's longest
 * possible duration. The ledger's revision guard lets one replica's claim through and answers the
 * others `stale`, and they leave it. A claim whose holder died expires with that due time, and the
 * next scan anywhere takes it over (same `webhook-id`). The claim notes when its attempt started:
 * the next holder finds that note on a claim whose holder never recorded an outcome, and lists the
 * attempt in the history as interrupted (the receiver may have had it) before making its own.
 * Should a holder outlive its claim (a stalled process), its attempt still takes its place in the
 * delivery's history when it ends.
 *
 * Deliveries about one property to one endpoint go in the order they were decided: one waits
 * while an earlier one is still pending (under way, or waiting for its retry), so a receiver never
 * hears of a second price drop before the first, whatever the retries and the replicas.
 *
 * E-mails (`channel: email`) take the same path: claimed, checked against the search, sent
 * through the breaker of their SMTP server, recorded; a search's e-mails to one address go in the
 * order they were formed.
 */
import { Logger } from '@nestjs/common';
import type { DeliveryAttempt } from '@immo/contracts';
import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import type { EndpointBreakers } from '../delivery/endpoint-breakers';
import { decideAfterAttempt, type DeliveryDecision } from '../delivery/delivery-outcome';
import type { GuardedHttpsClient } from '../delivery/guarded-https-client';
import { webhookHeaders } from '../delivery/webhook-signer';
import { decideAfterEmail, type SmtpOutcome } from '../email/smtp-outcome';
import type { EmailMessage, OutgoingEmail } from '../email/smtp-mailer';
import { recipientOf } from '../email/email-batcher';
import { SecretBoxError } from '../secrets/secret-box';
import type { WebhookSecrets } from '../secrets/webhook-secrets';
import { DELIVERIES_COLLECTION, interruptedAttempt, type DeliveryDoc } from './delivery-records';
import { HostFairQueue } from './host-fair-queue';
import type { SearchStates } from './search-states';

export interface DispatchPolicy {
  maxRetries: number;
  retryIntervalMs: number;
  concurrency: number;
  /** How long a claimed delivery is left to its holder: longer than an attempt can take. */
  claimMs: number;
  /** The same for an e-mail (an SMTP timeout instead of the webhook one); `claimMs` when absent. */
  emailClaimMs?: number;
}

/** Requests in flight to one host at most. */
const MAX_PER_HOST = 32;
/** How often due retries are looked for. */
const SCAN_MS = 500;
const SCAN_LIMIT = 2000;
/** A delivery refused by an open breaker is tried again after this long (not counted as an attempt). */
const BREAKER_DEFER_MS = 5_000;
/** The searches service could not say whether the search still wants it: try again soon. */
const UNKNOWN_STATE_DEFER_MS = 2_000;
/**
 * The account's secret could not be read (sealed under a key SECRETS_KEY no longer holds): nothing
 * goes out unsigned or signed with another secret, and no attempt is counted; it waits for the key.
 */
const UNREADABLE_SECRET_DEFER_MS = 60_000;
/** An earlier delivery about the same property to the same endpoint is under way: look again this soon. */
const BEHIND_EARLIER_DEFER_MS = 250;

/** Sends e-mails (see SmtpMailer), with its own breakers: SMTP servers are unwell differently. */
export interface EmailChannel {
  serverFor(recipient: string): string;
  send(email: OutgoingEmail): Promise<SmtpOutcome>;
  breakers: EndpointBreakers<SmtpOutcome>;
}

export interface DispatcherHooks {
  /** A receiver answered 410 Gone. */
  endpointGone(searchId: string, endpoint: string): void;
}

export interface DispatchCounters {
  delivered: number;
  failed: number;
  retried: number;
  deferred: number;
  cancelled: number;
}

export class DeliveryDispatcher {
  private readonly logger = new Logger('DeliveryDispatcher');
  private readonly deliveries: DocumentCollection<DeliveryDoc>;
  private readonly queue: HostFairQueue;
  private scanTimer: NodeJS.Timeout | null = null;
  private scanning: Promise<void> | null = null;
  private stopped = true;
  private readonly running = new Set<Promise<void>>();
  readonly counters: DispatchCounters = { delivered: 0, failed: 0, retried: 0, deferred: 0, cancelled: 0 };

  constructor(
    store: DocumentStore,
    private readonly client: GuardedHttpsClient,
    private readonly breakers: EndpointBreakers,
    private readonly secrets: WebhookSecrets,
    private readonly searches: SearchStates,
    private readonly policy: DispatchPolicy,
    private readonly hooks: DispatcherHooks,
    private readonly now: () => number = Date.now,
    private readonly email: EmailChannel | null = null,
  ) {
    this.deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
    this.queue = new HostFairQueue(policy.concurrency, MAX_PER_HOST);
  }

  get inFlight(): number {
    return this.queue.active;
  }

  start(): void {
    this.stopped = false;
    this.scheduleScan(0);
  }

  /** Stops starting attempts and waits for the ones under way to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.scanTimer) clearTimeout(this.scanTimer);
    this.scanTimer = null;
    await this.scanning;
    await Promise.allSettled([...this.running]);
  }

  /** A delivery to attempt now (just recorded, or retried by hand). */
  enqueue(doc: Pick<DeliveryDoc, '_id' | 'endpoint'>): void {
    // A stream-only notification has nowhere to be sent.
    if (this.stopped || doc.endpoint === null) return;
    const recipient = recipientOf(doc.endpoint);
    const host = recipient === null ? hostOf(doc.endpoint) : (this.email?.serverFor(recipient) ?? 'smtp:none');
    if (this.queue.push(host, doc._id)) this.pump();
  }

  private scheduleScan(delayMs: number): void {
    if (this.stopped) return;
    this.scanTimer = setTimeout(() => {
      this.scanTimer = null;
      this.scanning = this.scan()
        .catch((error: unknown) => this.logger.warn(`looking for due deliveries failed: ${String(error)}`))
        .finally(() => {
          this.scanning = null;
          this.scheduleScan(SCAN_MS);
        });
    }, delayMs);
    this.scanTimer.unref();
  }

  private async scan(): Promise<void> {
    const due = await this.deliveries.find(
      { status: 'pending', nextAttemptAtMs: { $lte: this.now() } },
      { sort: { nextAttemptAtMs: 1 }, limit: SCAN_LIMIT, projection: { _id: 1, endpoint: 1 } },
    );
    for (const doc of due) this.enqueue(doc);
  }

  private pump(): void {
    for (let next = this.queue.take(); next !== null; next = this.queue.take()) {
      const { host, id } = next;
      const work = this.attempt(id, host)
        .catch((error: unknown) => this.logger.error(`delivery ${id} could not be attempted: ${String(error)}`))
        .finally(() => {
          this.queue.done(host, id);
          this.running.delete(work);
          if (!this.stopped) this.pump();
        });
      this.running.add(work);
    }
  }

  private async attempt(id: string, host: string): Promise<void> {
    const found = await this.deliveries.findById(id);
    if (found === null || found.endpoint === null || found.status !== 'pending' || (found.nextAttemptAtMs ?? 0) > this.now()) return;
    const earlier = await this.earlierPending(found);
    if (earlier !== null) {
      // Under way: looked at again shortly. Waiting for a retry: not before that retry.
      const waitUntil = earlier.attemptStartedAt ? this.now() + BEHIND_EARLIER_DEFER_MS : Math.max(this.now() + BEHIND_EARLIER_DEFER_MS, earlier.nextAttemptAtMs ?? 0);
      await this.deliveries.upsert({ ...found, revision: found.revision + 1, nextAttemptAtMs: waitUntil });
      return;
    }
    const startedAt = new Date(this.now()).toISOString();
    // A previous holder's attempt that never got its outcome recorded is listed as interrupted.
    const attempts = found.attemptStartedAt ? [...found.attempts, interruptedAttempt(found.attemptStartedAt)] : found.attempts;
    const doc: DeliveryDoc & { endpoint: string } = {
      ...found,
      endpoint: found.endpoint,
      revision: found.revision + 1,
      nextAttemptAtMs: this.now() + (found.channel === 'email' ? (this.policy.emailClaimMs ?? this.policy.claimMs) : this.policy.claimMs),
      attempts,
      attemptStartedAt: startedAt,
    };
    // Another replica claimed it between the read and this write: it is theirs.
    if ((await this.deliveries.upsert(doc)) === 'stale') return;

    const recipient = doc.channel === 'email' ? recipientOf(doc.endpoint) : null;
    let wanted: boolean;
    try {
      const state = await this.searches.of(doc.searchId);
      const target = recipient !== null ? (state.notificationRecipient?.toLowerCase() ?? null) : doc.kind === 'match' ? state.endpointRecipient : state.eventEndpoint;
      wanted = state.active && target === (recipient ?? doc.endpoint);
    } catch (error) {
      this.logger.warn(`cannot tell whether search ${doc.searchId} still wants delivery ${id} (${String(error)}); deferred`);
      await this.save({ ...doc, revision: doc.revision + 1, nextAttemptAtMs: this.now() + UNKNOWN_STATE_DEFER_MS, attemptStartedAt: null });
      return;
    }
    if (!wanted) {
      this.counters.cancelled++;
      await this.save({ ...doc, revision: doc.revision + 1, status: 'failed', nextAttemptAtMs: null, attemptStartedAt: null, failure: 'cancelled: the search was deleted, its notifications turned off or this endpoint replaced' });
      return;
    }
    if (recipient !== null) return this.attemptEmail(doc, recipient, host, startedAt);

    let secrets: string[];
    try {
      secrets = await this.secrets.signing(doc.accountId);
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      this.logger.error(`delivery ${id} cannot be signed: the webhook secret of account ${doc.accountId} cannot be read (${error.message}); deferred`);
      await this.save({ ...doc, revision: doc.revision + 1, nextAttemptAtMs: this.now() + UNREADABLE_SECRET_DEFER_MS, attemptStartedAt: null });
      return;
    }
    const headers = webhookHeaders(doc._id, Math.floor(this.now() / 1000), doc.payload, secrets);
    const result = await this.breakers.run(host, () => this.client.post(doc.endpoint, doc.payload, headers));
    if (result.refused) {
      this.counters.deferred++;
      await this.save({ ...doc, revision: doc.revision + 1, nextAttemptAtMs: this.now() + BREAKER_DEFER_MS, attemptStartedAt: null });
      return;
    }
    const { outcome } = result;
    await this.record(doc, attemptOf(startedAt, outcome), decideAfterAttempt(outcome, doc.attempts.length + 1, this.policy, this.now()));
  }

  /** An attempt joins the history, and what was decided from its outcome (a webhook's or an e-mail's) is recorded. */
  private async record(doc: DeliveryDoc & { endpoint: string }, attempt: DeliveryAttempt, decision: DeliveryDecision): Promise<void> {
    const next: DeliveryDoc = { ...doc, revision: doc.revision + 1, attempts: [...doc.attempts, attempt], attemptStartedAt: null };
    switch (decision.status) {
      case 'delivered':
        this.counters.delivered++;
        await this.save({ ...next, status: 'delivered', nextAttemptAtMs: null, failure: null }, attempt);
        return;
      case 'retry':
        this.counters.retried++;
        await this.save({ ...next, nextAttemptAtMs: decision.atMs }, attempt);
        return;
      case 'gone':
        this.counters.failed++;
        await this.save({ ...next, status: 'failed', nextAttemptAtMs: null, failure: `${doc.endpoint} answered 410 Gone: the search's notifications were turned off` }, attempt);
        this.searches.forget(doc.searchId);
        this.hooks.endpointGone(doc.searchId, doc.endpoint);
        return;
      case 'failed':
        this.counters.failed++;
        await this.save({ ...next, status: 'failed', nextAttemptAtMs: null, failure: decision.reason }, attempt);
        return;
    }
  }

  private async attemptEmail(doc: DeliveryDoc & { endpoint: string }, recipient: string, host: string, startedAt: string): Promise<void> {
    if (this.email === null) {
      // A replica without SMTP settings leaves the e-mail to one that has them, or to a restart with them.
      await this.save({ ...doc, revision: doc.revision + 1, nextAttemptAtMs: this.now() + UNKNOWN_STATE_DEFER_MS, attemptStartedAt: null });
      return;
    }
    const { unsubscribeUrl, ...message } = JSON.parse(doc.payload) as EmailMessage & { unsubscribeUrl: string };
    const email = this.email;
    const result = await email.breakers.run(host, () => email.send({ id: doc._id, to: recipient, message, unsubscribeUrl }));
    if (result.refused) {
      this.counters.deferred++;
      await this.save({ ...doc, revision: doc.revision + 1, nextAttemptAtMs: this.now() + BREAKER_DEFER_MS, attemptStartedAt: null });
      return;
    }
    const { outcome } = result;
    await this.record(doc, attemptOf(startedAt, outcome), decideAfterEmail(outcome, doc.attempts.length + 1, this.policy, this.now()));
  }

  /**
   * The earliest delivery decided before this one about the same property to the same endpoint,
   * still pending; for an e-mail, the search's earliest e-mail to that address still pending.
   */
  private async earlierPending(doc: DeliveryDoc): Promise<DeliveryDoc | null> {
    if (doc.channel === 'email') {
      const [earlier] = await this.deliveries.find(
        { endpoint: doc.endpoint, searchId: doc.searchId, status: 'pending', createdAt: { $lt: doc.createdAt } },
        { sort: { createdAt: 1 }, limit: 1 },
      );
      return earlier ?? null;
    }
    const [earlier] = await this.deliveries.find(
      { propertyId: doc.propertyId, searchId: doc.searchId, endpoint: doc.endpoint, status: 'pending', streamSeq: { $lt: doc.streamSeq } },
      { sort: { streamSeq: 1 }, limit: 1 },
    );
    return earlier ?? null;
  }

  /**
   * Records what the claim's holder decided. When the claim was taken over meanwhile, the new
   * holder decides what happens next, and only this attempt (if one was made) joins the history.
   */
  private async save(doc: DeliveryDoc, attempt: DeliveryAttempt | null = null): Promise<void> {
    if ((await this.deliveries.upsert(doc)) !== 'stale' || attempt === null) return;
    this.logger.warn(`delivery ${doc._id} was claimed by another replica while this one attempted it; the attempt joins its history`);
    await this.addAttempt(doc._id, attempt);
  }

  /**
   * Adds an attempt to a delivery's history whoever holds it, retrying on concurrent writes. It
   * takes the place of its own entry as interrupted, when the next holder wrote one meanwhile.
   */
  private async addAttempt(id: string, attempt: DeliveryAttempt): Promise<void> {
    for (let tries = 0; tries < 5; tries++) {
      const current = await this.deliveries.findById(id);
      if (current === null) return;
      const others = current.attempts.filter((entry) => !(entry.at === attempt.at && entry.statusCode === null && entry.error === interruptedAttempt(entry.at).error));
      const attempts = [...others, attempt].sort((a, b) => a.at.localeCompare(b.at));
      if ((await this.deliveries.upsert({ ...current, revision: current.revision + 1, attempts })) !== 'stale') return;
    }
  }
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host.toLowerCase();
  } catch {
    return endpoint;
  }
}

/** The history's entry for an attempt's outcome (a POST's or an SMTP server's). */
function attemptOf(at: string, outcome: { statusCode: number | null; durationMs: number; error: string | null }): DeliveryAttempt {
  return { at, statusCode: outcome.statusCode, durationMs: Math.round(outcome.durationMs), error: outcome.error };
}
