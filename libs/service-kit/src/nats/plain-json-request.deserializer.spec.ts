import 'reflect-metadata';
import { PlainJsonRequestDeserializer, UNREADABLE_BODY } from './plain-json-request.deserializer';

const encode = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
/** A crawler's batch well over the size from which a body is parsed a piece at a time. */
const batch = { snapshots: Array.from({ length: 600 }, (_, i) => ({ url: `https://portal.example/annonces/${i}`, description: 'Maison avec jardin. '.repeat(20) })) };
const request = { channel: 'listings.cmd.ingest-adverts.v1', replyTo: '_INBOX.1' };

describe('PlainJsonRequestDeserializer', () => {
  const deserializer = new PlainJsonRequestDeserializer();

  it('reads a small body at once, and a large one a piece at a time into the same request', async () => {
    const small = deserializer.deserialize(encode({ snapshots: batch.snapshots.slice(0, 2) }), request);
    expect(small).not.toBeInstanceOf(Promise);
    expect(small).toMatchObject({ pattern: request.channel, data: { snapshots: batch.snapshots.slice(0, 2) } });

    const large = deserializer.deserialize(encode(batch), request);
    expect(large).toBeInstanceOf(Promise);
    expect(await large).toMatchObject({ pattern: request.channel, data: batch });
  });

  it('hands requests on in the order they came while a large one is read a piece at a time', async () => {
    const order: string[] = [];
    const large = Promise.resolve(deserializer.deserialize(encode(batch), request)).then(() => order.push('large'));
    const small = Promise.resolve(deserializer.deserialize(encode({ snapshots: [] }), request)).then(() => order.push('small after it'));
    await Promise.all([large, small]);
    expect(order).toEqual(['large', 'small after it']);
    // Once read, small bodies are read at once again.
    expect(deserializer.deserialize(encode({ snapshots: [] }), request)).not.toBeInstanceOf(Promise);
  });

  it("reads a large Nest envelope as Nest's own deserializer does", async () => {
    const envelope = { pattern: 'listings.cmd.ingest-adverts.v1', id: 'abc', data: batch };
    expect(await deserializer.deserialize(encode(envelope), request)).toEqual(envelope);
  });

  it('answers a large body that is not JSON as unreadable, without rejecting', async () => {
    const broken = JSON.stringify(batch).replace('"url"', 'url');
    expect(await deserializer.deserialize(encode(broken), request)).toMatchObject({ pattern: request.channel, data: UNREADABLE_BODY });
  });
});
