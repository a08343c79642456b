import type { AdvertSnapshot } from '@immo/contracts';
import { decide, evolve } from './advert';
import { ADVERT_EVENT_TYPES, type AdvertDomainEvent, type AdvertState } from './advert.events';
import { changedFields, movedOnlyByCrawl } from './document-changes';
import { buildPropertyDocument } from './property-document';
import { aSnapshot } from './snapshot.fixture';

const PROPERTY_ID = '0f5d5f2e-3d1c-5a7e-9c41-6c0f1b2a3d4e';

/** The advert after a snapshot, and the events the snapshot caused. */
function seen(state: AdvertState | null, snapshot: AdvertSnapshot): { state: AdvertState; events: AdvertDomainEvent[] } {
  const events = decide(snapshot, state);
  const next = events.reduce<AdvertState | null>((s, e) => evolve(s, e), state);
  if (next === null) throw new Error('no state');
  return { state: next, events };
}

const documentOf = (...adverts: AdvertState[]) => buildPropertyDocument({ propertyId: PROPERTY_ID, adverts, city: null, stations: [] });

const agency = aSnapshot({ seenAt: '2026-03-01T10:00:00Z' });
const individual = aSnapshot({
  site: 'synthetic-classifieds-b',
  reference: 'B-77',
  url: 'https://synthetic-classifieds-b.example/ad/77',
  publisher: { name: 'Particulier', category: 'individual', type: 0 },
  title: 'Vends T3 lumineux',
  price: 279_000,
  pictures: ['https://img.synthetic-classifieds-b.example/77/a.jpg'],
  seenAt: '2026-03-02T10:00:00Z',
});

describe('movedOnlyByCrawl', () => {
  it('given the recrawl of a property\'s only advert, when compared, then only crawl fields moved', () => {
    const first = seen(null, agency);
    const recrawl = seen(first.state, { ...agency, seenAt: '2026-03-05T10:00:00Z' });
    expect(recrawl.events.map((e) => e.type)).toEqual([ADVERT_EVENT_TYPES.recrawled]);
    const before = documentOf(first.state);
    const after = documentOf(recrawl.state);
    expect(after.lastCrawledAt).not.toBe(before.lastCrawledAt);
    expect(movedOnlyByCrawl(recrawl.events[0] as AdvertDomainEvent, before, after)).toBe(true);
  });

  it('given a recrawl that makes another advert the lead, when compared, then more than crawl fields moved', () => {
    const lead = seen(null, individual); // crawled last: the lead so far
    const other = seen(null, agency);
    const recrawl = seen(other.state, { ...agency, seenAt: '2026-03-06T10:00:00Z' });
    const before = documentOf(lead.state, other.state);
    const after = documentOf(lead.state, recrawl.state);
    expect(before.price).toBe(279_000);
    expect(after.price).toBe(289_000);
    expect(changedFields(before, after)).toEqual(expect.arrayContaining(['title', 'price', 'pictures']));
    expect(movedOnlyByCrawl(recrawl.events[0] as AdvertDomainEvent, before, after)).toBe(false);
  });

  it('given any other event, or no document before, when compared, then it is not a crawl-only change', () => {
    const first = seen(null, agency);
    const repriced = seen(first.state, { ...agency, price: 280_000, seenAt: '2026-03-05T10:00:00Z' });
    const event = repriced.events[0] as AdvertDomainEvent;
    expect(event.type).toBe(ADVERT_EVENT_TYPES.priceChanged);
    expect(movedOnlyByCrawl(event, documentOf(first.state), documentOf(repriced.state))).toBe(false);
    const recrawl = seen(first.state, { ...agency, seenAt: '2026-03-05T10:00:00Z' });
    expect(movedOnlyByCrawl(recrawl.events[0] as AdvertDomainEvent, null, documentOf(recrawl.state))).toBe(false);
  });
});
