import 'reflect-metadata';
import { PlainJsonRequestDeserializer, UNREADABLE_BODY } from './plain-json-request.deserializer';

const encode = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const batch = { snapshots: Array.from({ length: 3 }, (_, i) => ({ url: `https://portal.example/annonces/${i}`, description: 'Maison avec jardin.' })) };
const request = { channel: 'listings.cmd.ingest-adverts.v1', replyTo: '_INBOX.1' };

describe('PlainJsonRequestDeserializer', () => {
  const deserializer = new PlainJsonRequestDeserializer();

  it('reads a plain JSON body as a request for the handler of the subject it was sent to', () => {
    expect(deserializer.deserialize(encode(batch), request)).toMatchObject({ pattern: request.channel, data: batch, id: expect.any(String) });
  });

  it("reads a Nest envelope as Nest's own deserializer does", () => {
    const envelope = { pattern: 'listings.cmd.ingest-adverts.v1', id: 'abc', data: batch };
    expect(deserializer.deserialize(encode(envelope), request)).toEqual(envelope);
  });

  it('answers a body that is not JSON as unreadable, without throwing', () => {
    const broken = JSON.stringify(batch).replace('"url"', 'url');
    expect(deserializer.deserialize(encode(broken), request)).toMatchObject({ pattern: request.channel, data: UNREADABLE_BODY });
  });

  it('reads an empty body as a request without payload', () => {
    expect(deserializer.deserialize(new Uint8Array(0), request)).toMatchObject({ pattern: request.channel, data: undefined });
  });
});
