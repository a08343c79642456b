import type { PropertyDocument } from './property-document';
import { propertyDocumentInParisTime } from './property-document-times';
import { sampleAdvert, samplePropertyDocument } from './sample-property-document';

/** A stored document (UTC) with a winter advert that expired in summer and a summer price change. */
function storedDocument(): PropertyDocument {
  const advert = {
    ...sampleAdvert(),
    createdAt: '2026-02-01T10:00:00+00:00',
    updatedAt: '2026-07-01T12:03:00+00:00',
    lastCrawledAt: '2026-07-01T12:03:00+00:00',
    expired: true,
    expiredAt: '2026-07-02T22:30:00+00:00',
    events: [{ fieldName: 'price', fieldOldValue: '300000', fieldNewValue: '289000', percentVariation: -3.67, createdAt: '2026-06-30T23:15:00+00:00' }],
  };
  return { ...samplePropertyDocument(), adverts: [advert, sampleAdvert()], expired: false, expiredAt: null };
}

describe('property documents in Paris time', () => {
  it('shows every time of the document, its adverts and their events with the Paris offset of its date', () => {
    const shown = propertyDocumentInParisTime(storedDocument());

    expect([shown.createdAt, shown.updatedAt, shown.lastCrawledAt, shown.expiredAt]).toEqual([
      '2026-02-01T11:00:00+01:00',
      '2026-02-20T11:00:00+01:00',
      '2026-02-20T11:00:00+01:00',
      null,
    ]);
    const [summer, winter] = shown.adverts;
    expect([summer?.createdAt, summer?.updatedAt, summer?.lastCrawledAt, summer?.expiredAt]).toEqual([
      '2026-02-01T11:00:00+01:00',
      '2026-07-01T14:03:00+02:00',
      '2026-07-01T14:03:00+02:00',
      '2026-07-03T00:30:00+02:00',
    ]);
    expect(summer?.events.map((event) => event.createdAt)).toEqual(['2026-07-01T01:15:00+02:00']);
    expect(winter?.expiredAt).toBeNull();
  });

  it('changes nothing else, keeps the fields in their places and leaves the stored document as it was', () => {
    const stored = storedDocument();
    const before = structuredClone(stored);
    const shown = propertyDocumentInParisTime(stored);

    expect(stored).toEqual(before);
    expect(Object.keys(shown)).toEqual(Object.keys(stored));
    expect(Object.keys(shown.adverts[0] ?? {})).toEqual(Object.keys(stored.adverts[0] ?? {}));
    const withoutTimes = ({ createdAt: _c, updatedAt: _u, lastCrawledAt: _l, expiredAt: _e, adverts: _a, ...rest }: PropertyDocument) => rest;
    expect(withoutTimes(shown)).toEqual(withoutTimes(stored));
  });

  it('gives the same document when applied again', () => {
    const shown = propertyDocumentInParisTime(storedDocument());
    expect(propertyDocumentInParisTime(shown)).toEqual(shown);
  });
});
