import { Logger } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { ErrorCode, JSONCodec, NatsError, type Msg, type NatsConnection, type Subscription } from 'nats';
import { isRpcErrorPayload, LISTINGS_SUBJECTS, rpcErrors, type IngestAdvertsReply, type RpcErrorPayload } from '@immo/contracts';
import { requestIdHeaders, requestIdOfHeaders, withRequestId } from '@immo/service-kit';
import type { IngestionGate } from './ingestion-gate';
import { BATCH_TIME_MS, type IngestionService } from './ingestion.service';

/** Where the replica that leads ingestion listens for batches the other replicas received. */
export const LEADER_INGEST_SUBJECT = LISTINGS_SUBJECTS.leaderIngest;
/** How long a batch waits for the gate to open (start-up catch-up, leader change). */
const GATE_WAIT_MS = 5000;
/** Above the leader's time for a batch (BATCH_TIME_MS) and below the gateway's own 15 s, so a forwarded batch is answered before the gateway gives up. */
const FORWARD_TIMEOUT_MS = 12_000;

type LeaderReply = { ok: IngestAdvertsReply } | { error: RpcErrorPayload };
const codec = JSONCodec<LeaderReply>();
const requestCodec = JSONCodec<{ snapshots: unknown[] }>();

/**
 * Sends every ingestion batch to the one replica that leads ingestion: handled here when this
 * replica leads, forwarded over NATS otherwise. While no replica can ingest (start-up catch-up,
 * leader change) a batch waits a bounded time, then is answered 503 "retry later", never
 * ingested against an incomplete grouping index.
 */
export class IngestionRouter {
  private readonly logger = new Logger('IngestionRouter');
  private subscription: Subscription | null = null;
  private leading = false;

  constructor(
    private readonly nats: NatsConnection,
    private readonly ingestion: IngestionService,
    private readonly gate: IngestionGate,
  ) {}

  /** `requestId`: the id the batch came with, handed on to the leader when forwarded. */
  async ingest(snapshots: unknown[], requestId: string | null = null): Promise<IngestAdvertsReply> {
    if (this.leading) return this.ingestHere(snapshots, requestId);
    try {
      const message = await this.nats.request(LEADER_INGEST_SUBJECT, requestCodec.encode({ snapshots }), { timeout: FORWARD_TIMEOUT_MS, headers: requestIdHeaders(requestId) });
      const reply = codec.decode(message.data);
      if ('error' in reply) throw new RpcException(reply.error);
      return reply.ok;
    } catch (error) {
      if (error instanceof RpcException) throw error;
      if (error instanceof NatsError && error.code === ErrorCode.NoResponders) {
        throw new RpcException(rpcErrors.unavailable('No listings instance leads ingestion right now (leader change); retry later.'));
      }
      throw error;
    }
  }

  /** This replica took the lead: serve the leader subject. */
  lead(): void {
    this.leading = true;
    if (this.subscription) return;
    this.subscription = this.nats.subscribe(LEADER_INGEST_SUBJECT, {
      callback: (error, message) => {
        if (error) return;
        void this.answerForwarded(message);
      },
    });
  }

  /** The lease was lost or given up: stop serving the leader subject. */
  follow(): void {
    this.leading = false;
    this.subscription?.unsubscribe();
    this.subscription = null;
  }

  /** Ingests a batch another replica forwarded, with the request id it came with to that replica. */
  private async answerForwarded(message: Msg): Promise<void> {
    let reply: LeaderReply;
    try {
      reply = { ok: await this.ingestHere(requestCodec.decode(message.data).snapshots, requestIdOfHeaders(message.headers)) };
    } catch (failure) {
      const payload = failure instanceof RpcException ? failure.getError() : null;
      reply = { error: isRpcErrorPayload(payload) ? payload : rpcErrors.unavailable(`ingestion failed: ${String(failure)}; retry later`) };
    }
    message.respond(codec.encode(reply));
  }

  private async ingestHere(snapshots: unknown[], requestId: string | null): Promise<IngestAdvertsReply> {
    // The batch's time runs from its arrival: a wait for the gate is part of it.
    const deadline = Date.now() + BATCH_TIME_MS;
    if (!(await this.gate.whenOpen(GATE_WAIT_MS))) {
      this.logger.warn(withRequestId(`batch refused: ${this.gate.closedReason}`, requestId));
      throw new RpcException(rpcErrors.unavailable(`${this.gate.closedReason}; retry later.`));
    }
    return this.ingestion.ingest(snapshots, { deadline, requestId });
  }
}
