import type { DocumentCollection, StoredDocument } from '@immo/document-store';
import type { AdvertRecord, PropertyRecord } from '../projection/read-models';
import { advertReadAhead } from './advert-read-ahead';

/** A collection that only records what it was asked to prefetch. */
function recording<T extends StoredDocument>(asked: string[][], wait: Promise<void> = Promise.resolve()): DocumentCollection<T> {
  return {
    prefetch: async (ids: readonly string[]) => {
      asked.push([...ids]);
      await wait;
    },
  } as unknown as DocumentCollection<T>;
}

describe('advertReadAhead', () => {
  const propertyOf = (advertId: string) => ({ a1: 'p1', a2: 'p1', a3: 'p2' })[advertId];

  it('fetches the adverts and, once each, the properties the directory knows them in', async () => {
    const adverts: string[][] = [];
    const properties: string[][] = [];
    await advertReadAhead(recording<AdvertRecord>(adverts), recording<PropertyRecord>(properties), { propertyOf })(['a1', 'a2', 'a3', 'new']);
    expect(adverts).toEqual([['a1', 'a2', 'a3', 'new']]);
    expect(properties).toEqual([['p1', 'p2']]);
  });

  it('resolves once both are fetched', async () => {
    let release = () => undefined as void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let done = false;
    const reading = advertReadAhead(recording<AdvertRecord>([]), recording<PropertyRecord>([], slow), { propertyOf })(['a1']).then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    release();
    await reading;
    expect(done).toBe(true);
  });
});
