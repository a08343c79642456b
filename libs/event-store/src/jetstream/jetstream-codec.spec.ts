import { createHash } from 'node:crypto';
import { commitMessageId, decodePosition, encodePosition, parseCommitBody, POSITIONS_PER_MESSAGE, streamFromSubject, subjectForStream } from './jetstream-codec';

describe('jetstream codec', () => {
  it('encodes positions so that every event of every commit gets its own, increasing number', () => {
    const positions = [encodePosition(1, 0), encodePosition(1, 1), encodePosition(1, POSITIONS_PER_MESSAGE - 1), encodePosition(2, 0)];
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(positions.length);
    expect(decodePosition(encodePosition(123_456, 789))).toEqual({ sequence: 123_456, indexInCommit: 789 });
    expect(decodePosition(0)).toEqual({ sequence: 0, indexInCommit: 0 });
  });

  it('maps any stream name to a single subject token and back', () => {
    for (const name of ['orders', 'listing-42.price', 'a.b.c', 'wild*card>', 'espace vide', 'é-ü-日本']) {
      const subject = subjectForStream('events', name);
      expect(subject.split('.')).toHaveLength(2);
      expect(subject).toMatch(/^events\.[A-Za-z0-9_-]+$/);
      expect(streamFromSubject('events', subject)).toBe(name);
    }
    expect(streamFromSubject('events', 'other.abc')).toBeUndefined();
    expect(streamFromSubject('events', 'events.a.b')).toBeUndefined();
  });

  it('derives the message id from the stream and the event ids only', () => {
    expect(commitMessageId('s', ['1', '2'])).toBe(commitMessageId('s', ['1', '2']));
    expect(commitMessageId('s', ['1', '2'])).not.toBe(commitMessageId('s', ['2', '1']));
    expect(commitMessageId('s', ['1', '2'])).not.toBe(commitMessageId('t', ['1', '2']));
    expect(commitMessageId('s', ['12'])).not.toBe(commitMessageId('s', ['1', '2']));
  });

  it('keeps the message ids of stored commits: SHA-256 of the stream, then a newline and each event id', () => {
    const asFirstWritten = (stream: string, ids: string[]) => {
      const hash = createHash('sha256').update(stream, 'utf8');
      for (const id of ids) hash.update(`\n${id}`, 'utf8');
      return hash.digest('hex');
    };
    const cases: [string, string[]][] = [
      ['advert-1', []],
      ['advert-1', ['0f8c2a3e-1d2b-5c4d-9e8f-7a6b5c4d3e2f']],
      ['advert-é', ['a', 'b', 'c']],
      ['s', ['', '']],
    ];
    for (const [stream, ids] of cases) expect(commitMessageId(stream, ids)).toBe(asFirstWritten(stream, ids));
  });

  it('refuses bodies that are not commits', () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value));
    expect(() => parseCommitBody(encode({ events: [] }))).toThrow();
    expect(() => parseCommitBody(encode({ createdAt: 'x', events: [{ id: 1, type: 't' }] }))).toThrow();
    expect(parseCommitBody(encode({ createdAt: 'x', events: [{ id: 'a', type: 't', data: null, metadata: [1] }] }))).toEqual({
      createdAt: 'x',
      events: [{ id: 'a', type: 't', data: null }],
    });
  });
});
