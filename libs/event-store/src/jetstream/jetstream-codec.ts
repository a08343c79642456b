import { createHash } from 'node:crypto';
import { isPlainObject } from '@immo/runtime';

/**
 * A commit is one JetStream message holding up to this many events. The global position of an
 * event is `messageSequence * POSITIONS_PER_MESSAGE + indexInCommit`, which keeps positions unique
 * and strictly increasing per event while the log itself stays one message per commit (and so
 * all-or-nothing). With sequences below 2^53 / 1000 ≈ 9e12 the result is a safe integer.
 */
export const POSITIONS_PER_MESSAGE = 1000;

export function encodePosition(sequence: number, indexInCommit: number): number {
  return sequence * POSITIONS_PER_MESSAGE + indexInCommit;
}

export function decodePosition(position: number): { sequence: number; indexInCommit: number } {
  const sequence = Math.floor(position / POSITIONS_PER_MESSAGE);
  return { sequence, indexInCommit: position - sequence * POSITIONS_PER_MESSAGE };
}

/**
 * Stream names may contain `.`, `*`, `>` or spaces, all of which mean something in a NATS subject,
 * so the name travels as one base64url token (alphabet `A-Z a-z 0-9 - _`, always a valid token).
 */
export function subjectForStream(subjectPrefix: string, stream: string): string {
  return `${subjectPrefix}.${Buffer.from(stream, 'utf8').toString('base64url')}`;
}

export function streamFromSubject(subjectPrefix: string, subject: string): string | undefined {
  const head = `${subjectPrefix}.`;
  if (!subject.startsWith(head)) return undefined;
  const token = subject.slice(head.length);
  if (token.length === 0 || token.includes('.')) return undefined;
  return Buffer.from(token, 'base64url').toString('utf8');
}

/**
 * The `Nats-Msg-Id` of a commit: the same stream and event ids always give the same id, so a
 * retried publish inside the duplicate window is stored once. The stream name is part of it
 * because the dedupe window is shared by every event stream living in the JetStream stream.
 */
export function commitMessageId(stream: string, eventIds: readonly string[]): string {
  return createHash('sha256')
    .update(eventIds.length === 0 ? stream : `${stream}\n${eventIds.join('\n')}`)
    .digest('hex');
}

export const FIRST_REVISION_HEADER = 'Es-First-Revision';
export const LAST_REVISION_HEADER = 'Es-Last-Revision';

export interface CommitEventBody {
  id: string;
  type: string;
  data: unknown;
  metadata?: Record<string, unknown>;
}

export interface CommitBody {
  createdAt: string;
  events: CommitEventBody[];
}

/** Parses a commit body defensively: a foreign message on our subjects must not crash a reader. */
export function parseCommitBody(bytes: Uint8Array): CommitBody {
  const parsed: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
  if (!isPlainObject(parsed) || typeof parsed['createdAt'] !== 'string' || !Array.isArray(parsed['events'])) {
    throw new Error('not an event-store commit');
  }
  const events: CommitEventBody[] = [];
  for (const raw of parsed['events'] as unknown[]) {
    if (!isPlainObject(raw) || typeof raw['id'] !== 'string' || typeof raw['type'] !== 'string') throw new Error('malformed event in commit');
    const metadata = raw['metadata'];
    events.push({ id: raw['id'], type: raw['type'], data: raw['data'], ...(isPlainObject(metadata) ? { metadata } : {}) });
  }
  return { createdAt: parsed['createdAt'], events };
}
