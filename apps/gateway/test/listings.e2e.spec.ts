import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, JSONCodec, type JetStreamClient, type NatsConnection } from 'nats';
import {
  LISTINGS_INTEGRATION_STREAM,
  LISTINGS_INTEGRATION_SUBJECTS,
  type AdvertWebhookEvent,
  type IngestAdvertsReply,
  type PropertyDocument,
} from '@immo/contracts';
import { ROOT, startStackFixture, type StackFixture } from '@immo/stack';

type Collection<T> = { 'hydra:member': T[]; 'hydra:totalItems': number; 'hydra:view': Record<string, string> };
type Problem = { status: number; detail?: string; violations?: { propertyPath: string; message: string }[] };
type Accepted = Extract<IngestAdvertsReply['results'][number], { status: 'accepted' }>;
type Rejected = Extract<IngestAdvertsReply['results'][number], { status: 'rejected' }>;
type Snapshot = Record<string, unknown>;

const DAY_MS = 24 * 3600 * 1000;
const UTC_OFFSET = /[+-]\d{2}:\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The documented example snapshot without its `$comment`. */
const EXAMPLE: Snapshot = (() => {
  const raw = JSON.parse(readFileSync(join(ROOT, 'libs/contracts/src/listings/advert-snapshot.example.json'), 'utf8')) as Snapshot;
  delete raw['$comment'];
  return raw;
})();

/** A run-unique tag so that sites and references never collide with anything already stored. */
const RUN = Date.now().toString(36);

/** The example with a unique identity on `site`, plus overrides. */
function snapshot(site: string, reference: string, overrides: Snapshot = {}): Snapshot {
  const fullSite = `e2e-${site}-${RUN}`;
  return {
    ...structuredClone(EXAMPLE),
    site: fullSite,
    reference,
    url: `https://${fullSite}.example/annonces/${reference}`,
    ...overrides,
  };
}

const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();

/** Retries `fn` until it stops throwing (returning its value), or rethrows its last error. */
async function eventually<T>(fn: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (let delay = 25; ; delay = Math.min(delay * 2, 250)) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() >= until) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

const adminHeaders = (fixture: StackFixture) => ({ 'X-API-KEY': fixture.stack.adminApiKey });

async function ingest(fixture: StackFixture, body: unknown): Promise<IngestAdvertsReply> {
  const response = await fixture.send('POST', '/admin/adverts', body, adminHeaders(fixture));
  expect(response.status).toBe(200);
  return response.body as IngestAdvertsReply;
}

function accepted(reply: IngestAdvertsReply, index: number): Accepted {
  const result = reply.results[index];
  expect(result).toMatchObject({ index, status: 'accepted' });
  return result as Accepted;
}

function rejected(reply: IngestAdvertsReply, index: number): Rejected {
  const result = reply.results[index];
  expect(result).toMatchObject({ index, status: 'rejected' });
  return result as Rejected;
}

async function documentOf(fixture: StackFixture, propertyId: string): Promise<PropertyDocument> {
  const response = await fixture.get(`/documents/properties/${propertyId}`);
  expect(response.status).toBe(200);
  return response.body as PropertyDocument;
}

/** Polls the document until `check` passes on it. */
function documentWhen(fixture: StackFixture, propertyId: string, check: (document: PropertyDocument) => void): Promise<PropertyDocument> {
  return eventually(async () => {
    const document = await documentOf(fixture, propertyId);
    check(document);
    return document;
  });
}

async function projectionStatus(fixture: StackFixture): Promise<{ properties: number; adverts: number }> {
  const response = await fixture.get('/admin/read-models/properties/status', adminHeaders(fixture));
  expect(response.status).toBe(200);
  return response.body as { properties: number; adverts: number };
}

async function totalProperties(fixture: StackFixture): Promise<number> {
  const response = await fixture.get('/documents/properties?itemsPerPage=1');
  expect(response.status).toBe(200);
  return (response.body as Collection<PropertyDocument>)['hydra:totalItems'];
}

describe('listings end to end (ingestion, projection, reads, integration events)', () => {
  let fixture: StackFixture;
  let nats: NatsConnection;
  let js: JetStreamClient;
  const codec = JSONCodec<AdvertWebhookEvent>();

  /** Every integration event stored on `subject` so far. */
  async function integrationEvents(subject: string): Promise<AdvertWebhookEvent[]> {
    // A single subject as a string: nats-server 2.9 knows `filter_subject` only, not the 2.10 list.
    const consumer = await js.consumers.get(LISTINGS_INTEGRATION_STREAM, { filterSubjects: subject });
    const events: AdvertWebhookEvent[] = [];
    // Ends with the last stored message, or when the (short) fetch expires on an empty subject.
    const messages = await consumer.fetch({ max_messages: 10_000, expires: 1000 });
    for await (const message of messages) {
      events.push(codec.decode(message.data));
      if (message.info.pending === 0) break;
    }
    return events;
  }

  beforeAll(async () => {
    fixture = await startStackFixture();
    // Reads the integration stream as its consumer does.
    nats = await connect(fixture.stack.natsConnectOptions('searches'));
    js = nats.jetstream();
  }, 120_000);

  afterAll(async () => {
    await nats?.close();
    await fixture?.teardown();
  });

  // The same flat in Lyon, listed by an agency on one site and by its owner on another.
  const firstSeen = isoAgo(3 * DAY_MS);
  const agencyListing = snapshot('portal-a', 'LYON-FLAT-1', {
    publisher: { name: 'Agence Exemple (synthetic)', category: 'agency', type: 1 },
    seenAt: firstSeen,
  });
  const ownerListing = snapshot('portal-b', 'PAP-778899', {
    publisher: { name: 'Camille Particulier (synthetic)', category: 'individual', type: 0 },
    title: 'Vends T3 Lyon 3e',
    description: 'Annonce synthétique de particulier.',
    pictures: [],
    picturesRemote: [],
    virtualTour: null,
    seenAt: firstSeen,
  });
  let propertyId = '';
  let agencyAdvertId = '';

  it('groups two listings of the same flat from two sites into one PropertyDocument', async () => {
    const reply = await ingest(fixture, [agencyListing, ownerListing]);
    expect(reply).toMatchObject({ accepted: 2, rejected: 0, unchanged: 0 });
    const agency = accepted(reply, 0);
    const owner = accepted(reply, 1);
    expect(agency.propertyId).toMatch(UUID);
    expect(owner.propertyId).toBe(agency.propertyId);
    expect(owner.advertId).not.toBe(agency.advertId);
    expect(agency.events).toContain('AdvertPublished.v1');
    propertyId = agency.propertyId!;
    agencyAdvertId = agency.advertId;

    const document = await documentWhen(fixture, propertyId, (d) => expect(d.adverts).toHaveLength(2));
    expect(document).toMatchObject({
      '@context': '/contexts/PropertyDocument',
      '@id': `/documents/properties/${propertyId}`,
      '@type': 'PropertyDocument',
      uuid: propertyId,
      property: `/properties/${propertyId}`,
      publisherTypes: [0, 1],
      price: 289000,
      surface: 64.2,
      room: 3,
      propertyType: 0,
      transactionType: 0,
      pricePerMeter: Math.round((289000 / 64.2) * 100) / 100,
      locations: { lat: 45.7597, lon: 4.8553 },
      expired: false,
    });
    expect(document.pricePerMeter).toBe(4501.56);
    expect(document.adverts.map((a) => a.uuid).sort()).toEqual([agency.advertId, owner.advertId].sort());
    expect(document.adverts.map((a) => a.site).sort()).toEqual([agencyListing['site'], ownerListing['site']].sort());
    expect(document.city).toMatchObject({ insee: '69123' });
    // Ranked by listings from geo's station list: the nearest metro stations of Lyon Part-Dieu.
    expect(document.stations.map((station) => station.name)).toEqual(['Part-Dieu', 'Brotteaux', 'Saxe – Gambetta']);
    expect(document.stations[0]?.lines.length).toBeGreaterThan(0);
    for (const timestamp of [document.createdAt, document.updatedAt, document.lastCrawledAt]) expect(timestamp).toMatch(UTC_OFFSET);
    for (const advert of document.adverts) {
      expect(advert.createdAt).toMatch(UTC_OFFSET);
      expect(advert.lastCrawledAt).toMatch(UTC_OFFSET);
      expect(advert.events).toEqual([]);
    }
  });

  it('records a price drop on the advert, the document and JetStream, and ignores a redelivery', async () => {
    expect(propertyId).not.toBe('');
    const cheaper = { ...agencyListing, price: 275000, seenAt: isoAgo(2 * DAY_MS) };
    const reply = await ingest(fixture, [cheaper]);
    expect(reply).toMatchObject({ accepted: 1, rejected: 0, unchanged: 0 });
    const result = accepted(reply, 0);
    expect(result).toMatchObject({ advertId: agencyAdvertId, propertyId });
    expect(result.events).toContain('AdvertPriceChanged.v1');

    const document = await documentWhen(fixture, propertyId, (d) => expect(d.price).toBe(275000));
    const advert = document.adverts.find((a) => a.uuid === agencyAdvertId)!;
    expect(advert.price).toBe(275000);
    expect(advert.events).toHaveLength(1);
    expect(advert.events[0]).toMatchObject({ fieldName: 'price', fieldOldValue: '289000', fieldNewValue: '275000' });
    expect(advert.events[0]!.percentVariation).toBeLessThan(0);
    expect(advert.events[0]!.percentVariation).toBeCloseTo(-4.84, 2);
    expect(advert.events[0]!.createdAt).toMatch(UTC_OFFSET);
    expect(document.pricePerMeter).toBe(Math.round((275000 / 64.2) * 100) / 100);

    const priceEvent = await eventually(async () => {
      const events = await integrationEvents(LISTINGS_INTEGRATION_SUBJECTS.advertEvent('ad.update.price'));
      const mine = events.filter((e) => e.advertId === agencyAdvertId);
      expect(mine).toHaveLength(1);
      return mine[0]!;
    });
    expect(priceEvent).toMatchObject({
      type: 'advert.event',
      kind: 'ad.update.price',
      propertyId,
      advertId: agencyAdvertId,
      adEvent: { fieldName: 'price', fieldOldValue: '289000', fieldNewValue: '275000' },
    });
    expect(typeof priceEvent.adEvent!.percentVariation).toBe('string');
    expect(Number(priceEvent.adEvent!.percentVariation)).toBeLessThan(0);

    const again = await ingest(fixture, [cheaper]);
    expect(again).toMatchObject({ accepted: 1, rejected: 0, unchanged: 1 });
    expect(accepted(again, 0)).toMatchObject({ advertId: agencyAdvertId, propertyId, events: [] });
    const unchanged = await documentOf(fixture, propertyId);
    expect(unchanged.adverts.find((a) => a.uuid === agencyAdvertId)!.events).toHaveLength(1);
    expect(unchanged.price).toBe(275000);
  });

  describe('bad input', () => {
    it('accepts the valid items of a mixed batch and rejects each invalid one naming its field, storing nothing of them', async () => {
      const before = await totalProperties(fixture);
      const statusBefore = await projectionStatus(fixture);
      const seenAt = isoAgo(DAY_MS);
      // Each invalid item would found a property of its own if it were stored.
      const distinct = (surface: number) => ({ commune: { insee: '42218' }, location: null, surface, price: surface * 3000, seenAt });
      const valid = snapshot('mixed', 'VALID-1', {
        commune: { insee: '42218' },
        location: { lat: 45.4397, lon: 4.3872 },
        surface: 81.5,
        price: 153000,
        seenAt,
      });
      const withoutSite = snapshot('mixed', 'NO-SITE', distinct(40));
      delete withoutSite['site'];
      const batch = [
        valid,
        snapshot('mixed', 'NEGATIVE-PRICE', { ...distinct(30), price: -5 }),
        snapshot('mixed', 'PROPERTY-TYPE-9', { ...distinct(32), propertyType: 9 }),
        snapshot('mixed', 'BAD-URL', { ...distinct(34), url: 'not a url' }),
        snapshot('mixed', 'FUTURE', { ...distinct(36), seenAt: new Date(Date.now() + DAY_MS).toISOString() }),
        withoutSite,
      ];
      const reply = await ingest(fixture, { snapshots: batch });
      expect(reply).toMatchObject({ accepted: 1, rejected: 5, unchanged: 0 });
      expect(reply.results).toHaveLength(6);
      const validResult = accepted(reply, 0);
      expect(validResult.warnings).toEqual([]);
      const expectedPaths = ['price', 'propertyType', 'url', 'seenAt', 'site'];
      expectedPaths.forEach((path, i) => {
        const result = rejected(reply, i + 1);
        expect(result.advertId).toBeNull();
        expect(result.violations.map((v) => v.propertyPath)).toContain(path);
        for (const violation of result.violations) expect(violation.message).toEqual(expect.any(String));
      });

      const document = await documentWhen(fixture, validResult.propertyId!, (d) => expect(d.adverts).toHaveLength(1));
      expect(document.adverts[0]!.uuid).toBe(validResult.advertId);
      expect(document.city).toMatchObject({ insee: '42218' });
      // The search index takes the batch once its commit has resolved, which the embedded store
      // signals a moment after the document became readable: the list may lag the read by that.
      await eventually(async () => expect(await totalProperties(fixture)).toBe(before + 1));
      expect(await projectionStatus(fixture)).toMatchObject({ properties: statusBefore.properties + 1, adverts: statusBefore.adverts + 1 });
    });

    it('answers 400 for an empty batch, an oversized batch and a body that is not JSON', async () => {
      const cases: [unknown, string][] = [
        [[], '(root)'],
        [{ snapshots: [] }, 'snapshots'],
      ];
      for (const [body, path] of cases) {
        const empty = await fixture.send('POST', '/admin/adverts', body, adminHeaders(fixture));
        expect(empty.status).toBe(400);
        const problem = empty.body as Problem;
        expect(problem).toMatchObject({ status: 400, detail: expect.stringMatching(/body/i) });
        expect(problem.violations).toEqual([{ propertyPath: path, message: expect.stringMatching(/at least one/) }]);
      }

      const item = snapshot('oversized', 'ONE', { seenAt: isoAgo(DAY_MS) });
      const tooMany = await fixture.send('POST', '/admin/adverts', Array.from({ length: 1001 }, () => item), adminHeaders(fixture));
      expect(tooMany.status).toBe(400);
      expect(tooMany.body).toMatchObject({ status: 400, detail: expect.stringMatching(/body/i) });
      expect((tooMany.body as Problem).violations?.[0]?.message).toContain('1000');

      const notJson = await fixture.send('POST', '/admin/adverts', '{"snapshots": [', adminHeaders(fixture));
      expect(notJson.status).toBe(400);
      expect(notJson.body).toMatchObject({ '@type': 'hydra:Error', status: 400, detail: expect.stringMatching(/JSON/) });
      expect((notJson.body as Problem).violations).toEqual([{ propertyPath: '(body)', message: expect.stringMatching(/JSON/) }]);

      // None of these stored the advert.
      const later = await ingest(fixture, [item]);
      expect(accepted(later, 0).events).toContain('AdvertPublished.v1');
    });

    it('keeps ingestion for the admin key: 403 with the client key, 401 without a key', async () => {
      const item = snapshot('auth', 'ONE', { seenAt: isoAgo(DAY_MS) });
      const client = await fixture.send('POST', '/admin/adverts', [item], { 'X-API-KEY': fixture.stack.apiKey });
      expect(client.status).toBe(403);
      expect((client.body as Problem).status).toBe(403);
      const anonymous = await fixture.send('POST', '/admin/adverts', [item], {});
      expect(anonymous.status).toBe(401);
      expect((anonymous.body as Problem).status).toBe(401);
      const wrong = await fixture.send('POST', '/admin/adverts', [item], { 'X-API-KEY': 'wrong' });
      expect(wrong.status).toBe(401);

      // Neither attempt stored the advert: the admin's first ingestion publishes it.
      const admin = await ingest(fixture, [item]);
      expect(accepted(admin, 0).events).toContain('AdvertPublished.v1');
    });

    it('accepts an unknown commune with a warning and serves the document with a null city', async () => {
      const reply = await ingest(fixture, [
        snapshot('nowhere', 'UNKNOWN-COMMUNE', {
          commune: { insee: '99999' },
          location: null,
          surface: 47,
          price: 99000,
          seenAt: isoAgo(DAY_MS),
        }),
      ]);
      expect(reply).toMatchObject({ accepted: 1, rejected: 0 });
      const result = accepted(reply, 0);
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toMatch(/commune/);
      expect(result.warnings[0]).toContain('99999');
      const document = await documentWhen(fixture, result.propertyId!, (d) => expect(d.adverts).toHaveLength(1));
      expect(document.city).toBeNull();
      expect(document.locations).toBeNull();
      expect(Array.isArray(document.stations)).toBe(true);
    });
  });

  describe('reads', () => {
    it('lists the site categories of the stored adverts, each found by its name', async () => {
      const category = `network ${RUN}/é`;
      const reply = await ingest(fixture, [snapshot('categories', 'CAT-1', { siteCategory: category })]);
      const iri = `/site_categories/${encodeURIComponent(category)}`;
      const listed = await eventually(async () => {
        const body = (await fixture.get('/site_categories')).body as Collection<{ '@id': string; '@type': string; name: string }>;
        expect(body['hydra:member'].map((member) => member.name)).toContain(category);
        return body;
      });
      expect(accepted(reply, 0).propertyId).toMatch(UUID);
      expect(listed['hydra:member'].map((member) => member.name)).toEqual([...listed['hydra:member'].map((member) => member.name)].sort());
      expect(listed['hydra:member']).toContainEqual({ '@id': iri, '@type': 'SiteCategory', name: category });
      expect(listed['hydra:member']).toContainEqual({ '@id': '/site_categories/portal', '@type': 'SiteCategory', name: 'portal' });
      expect(listed['hydra:totalItems']).toBe(listed['hydra:member'].length);

      const one = await fixture.get(iri);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({ '@context': '/contexts/SiteCategory', '@id': iri, '@type': 'SiteCategory', name: category });
      expect((await fixture.get('/site_categories/no-such-category')).status).toBe(404);
      expect((await fixture.get('/site_categories?page=2')).body).toMatchObject({ 'hydra:member': [] });
      const bad = await fixture.get('/site_categories?page=0&kind=x');
      expect(bad.status).toBe(400);
      expect((bad.body as Problem).violations?.map((v) => v.propertyPath)).toEqual(['page']);
      expect((await fixture.get('/site_categories?kind=x')).headers.get('x-ignored-parameters')).toBe('kind');
    });

    it('answers 404 for an unknown property and 400 naming id for a malformed one', async () => {
      const unknown = await fixture.get('/documents/properties/00000000-0000-4000-8000-000000000000');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ '@type': 'hydra:Error', status: 404 });
      const malformed = await fixture.get('/documents/properties/not-a-uuid');
      expect(malformed.status).toBe(400);
      expect((malformed.body as Problem).violations?.[0]?.propertyPath).toBe('id');
    });

    it('lists properties newest first by createdAt, pages them and caps itemsPerPage at 30', async () => {
      // Seen minutes ago: newer than every other property of this stack.
      const paris = (reference: string, minutesAgo: number, surface: number, price: number) =>
        snapshot('listing', reference, {
          commune: { insee: '75115' },
          location: { lat: 48.8421, lon: 2.2996 },
          surface,
          price,
          room: null,
          floor: null,
          seenAt: isoAgo(minutesAgo * 60_000),
        });
      const reply = await ingest(fixture, [paris('OLDEST', 3, 21, 250000), paris('NEWEST', 1, 95, 990000), paris('MIDDLE', 2, 48, 520000)]);
      expect(reply).toMatchObject({ accepted: 3, rejected: 0 });
      const [oldest, newest, middle] = [0, 1, 2].map((i) => accepted(reply, i).propertyId!);
      expect(new Set([oldest, newest, middle]).size).toBe(3);
      for (const id of [oldest, newest, middle]) await documentWhen(fixture, id!, (d) => expect(d.uuid).toBe(id));

      // The list may lag the document reads by the commit's acknowledgement (see the mixed batch).
      const page = await eventually(async () => {
        const firstPage = await fixture.get('/documents/properties');
        expect(firstPage.status).toBe(200);
        const body = firstPage.body as Collection<PropertyDocument>;
        expect(body['hydra:member'].slice(0, 3).map((d) => d.uuid)).toEqual([newest, middle, oldest]);
        return body;
      });
      expect(page['hydra:member'].length).toBe(Math.min(10, page['hydra:totalItems']));
      const createdAt = page['hydra:member'].map((d) => Date.parse(d.createdAt));
      expect(createdAt).toEqual([...createdAt].sort((a, b) => b - a));
      expect(page['hydra:totalItems']).toBeGreaterThanOrEqual(3);
      expect(page['hydra:view']['hydra:first']).toContain('page=1');

      const second = await fixture.get('/documents/properties?itemsPerPage=1&page=2');
      expect(second.status).toBe(200);
      const secondPage = second.body as Collection<PropertyDocument>;
      expect(secondPage['hydra:member'].map((d) => d.uuid)).toEqual([middle]);
      expect(secondPage['hydra:totalItems']).toBe(page['hydra:totalItems']);
      expect(secondPage['hydra:view']).toMatchObject({
        '@id': expect.stringContaining('page=2'),
        'hydra:previous': expect.stringContaining('page=1'),
        'hydra:next': expect.stringContaining('page=3'),
      });

      const all = await fixture.get('/documents/properties?itemsPerPage=30');
      expect(all.status).toBe(200);
      expect((all.body as Collection<PropertyDocument>)['hydra:member'].length).toBe(Math.min(30, page['hydra:totalItems']));

      // Above 30 is capped, as the original service does; a page below 1 is refused.
      const tooMany = await fixture.get('/documents/properties?itemsPerPage=31');
      expect(tooMany.status).toBe(200);
      expect((tooMany.body as Collection<PropertyDocument>)['hydra:member'].length).toBe(Math.min(30, page['hydra:totalItems']));
      const pageZero = await fixture.get('/documents/properties?page=0');
      expect(pageZero.status).toBe(400);
      expect((pageZero.body as Problem).violations?.map((v) => v.propertyPath)).toEqual(['page']);
    });
  });
  describe('times', () => {
    // Two flats of their own site and places (no other listing joins them), seen in summer (given
    // at +05:00) and in winter (given in UTC).
    const site = `e2e-paris-time-${RUN}`;
    const summer = snapshot('paris-time', 'SUMMER', { site, seenAt: '2025-07-01T17:03:00+05:00', commune: { insee: '75115' }, location: { lat: 48.8421, lon: 2.2996 } });
    const winter = snapshot('paris-time', 'WINTER', { site, seenAt: '2025-01-15T08:00:00Z', commune: { insee: '33063' }, location: { lat: 44.8378, lon: -0.5792 } });
    const SUMMER_IN_PARIS = '2025-07-01T14:03:00+02:00';
    const WINTER_IN_PARIS = '2025-01-15T09:00:00+01:00';
    let summerId = '';
    let winterId = '';

    /** The flats of this site created within the bounds given (raw query text), oldest first. */
    async function createdWithin(bounds: string): Promise<string[]> {
      const response = await fixture.get(`/documents/properties?includedSites[]=${site}&order[createdAt]=asc&${bounds}`);
      expect(response.status).toBe(200);
      return (response.body as Collection<PropertyDocument>)['hydra:member'].map((document) => document.uuid);
    }

    beforeAll(async () => {
      const reply = await ingest(fixture, [summer, winter]);
      [summerId, winterId] = [accepted(reply, 0).propertyId!, accepted(reply, 1).propertyId!];
      await eventually(async () => expect(await createdWithin('')).toEqual([winterId, summerId]));
    });

    it('shows every time of a document in Paris time, with the offset of its date', async () => {
      for (const [id, shown] of [[summerId, SUMMER_IN_PARIS], [winterId, WINTER_IN_PARIS]] as const) {
        const document = await documentOf(fixture, id);
        const [advert] = document.adverts;
        expect([document.createdAt, document.updatedAt, document.lastCrawledAt, advert?.createdAt, advert?.updatedAt, advert?.lastCrawledAt]).toEqual(Array(6).fill(shown));
      }
      const page = (await fixture.get(`/documents/properties?includedSites[]=${site}&order[createdAt]=asc`)).body as Collection<PropertyDocument>;
      expect(page['hydra:member'].map((document) => document.createdAt)).toEqual([WINTER_IN_PARIS, SUMMER_IN_PARIS]);
    });

    it('reads date bounds with Z, with any offset, and without one as Paris time, inclusive to the second', async () => {
      // The summer flat was created at 12:03:00 UTC, 14:03:00 in Paris, 17:03:00 at +05:00.
      expect(await createdWithin('fromDate=2025-07-01T12:03:00Z')).toEqual([summerId]);
      expect(await createdWithin('fromDate=2025-07-01T12:03:01Z')).toEqual([]);
      expect(await createdWithin('fromDate=2025-07-01T17:03:00%2B05:00')).toEqual([summerId]);
      expect(await createdWithin('fromDate=2025-07-01T17:03:01%2B05:00')).toEqual([]);
      expect(await createdWithin('fromDate=2025-07-01%2014:03:00')).toEqual([summerId]);
      expect(await createdWithin('fromDate=2025-07-01%2014:03:01')).toEqual([]);
      // The winter one at 08:00:00 UTC, 09:00:00 in Paris.
      expect(await createdWithin('toDate=2025-01-15T08:00:00Z')).toEqual([winterId]);
      expect(await createdWithin('toDate=2025-01-15T07:59:59Z')).toEqual([]);
      expect(await createdWithin('toDate=2025-01-15T13:00:00%2B05:00')).toEqual([winterId]);
      expect(await createdWithin('toDate=2025-01-15%2009:00:00')).toEqual([winterId]);
      expect(await createdWithin('toDate=2025-01-15%2008:59:59')).toEqual([]);
      // A bare date is a Paris day: to its end as an upper bound, from its midnight as a lower one.
      expect(await createdWithin('toDate=2025-01-15')).toEqual([winterId]);
      expect(await createdWithin('toDate=2025-01-14')).toEqual([]);
      expect(await createdWithin('fromDate=2025-07-01&toDate=2025-07-01')).toEqual([summerId]);
    });
  });

  it('announces the new property through its adverts\' creations on JetStream, once per change', async () => {
    expect(propertyId).not.toBe('');
    // One creation per advert of the property (later tests may have added listings of the same flat),
    // each with the property's document; the advert that founded it announced the property too.
    const adCreated = (await integrationEvents('listings.events.advert.property.ad.create.v1')).filter((event) => event.propertyId === propertyId);
    const document = await documentOf(fixture, propertyId);
    expect(adCreated.map((event) => event.advertId).sort()).toEqual(document.adverts.map((advert) => advert.uuid).sort());
    expect(new Set(adCreated.map((event) => event.id)).size).toBe(adCreated.length);
    expect(adCreated.map((event) => event.document.uuid)).toEqual(adCreated.map(() => propertyId));
    const created = await integrationEvents('listings.events.property-created.v1');
    expect(created.filter((event) => event.propertyId === propertyId)).toEqual([]);
  });

  it('rebuilds the property read model from the event log into the same documents', async () => {
    expect(propertyId).not.toBe('');
    const before = await documentOf(fixture, propertyId);
    const countBefore = await totalProperties(fixture);
    const rebuild = await fixture.send('POST', '/admin/read-models/properties/rebuild', {}, adminHeaders(fixture));
    expect(rebuild.status).toBe(202);
    const after = await eventually(async () => {
      const response = await fixture.get(`/documents/properties/${propertyId}`);
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      if ((await totalProperties(fixture)) !== countBefore) throw new Error('rebuild still running');
      return response.body as PropertyDocument;
    });
    expect(after).toEqual(before);
    expect((await fixture.send('POST', '/admin/read-models/properties/rebuild', {}, { 'X-API-KEY': fixture.stack.apiKey })).status).toBe(403);
  });
});

describe('listings persistence across a restart', () => {
  let dataDir: string | undefined;
  let fixture: StackFixture | undefined;

  afterAll(async () => {
    await fixture?.teardown();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the same document, with the same uuid and adverts, after the stack restarts on its data', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'listings-e2e-'));
    fixture = await startStackFixture({}, dataDir);
    const reply = await ingest(fixture, [
      snapshot('restart', 'KEPT-1', { commune: { insee: '69123' }, surface: 112, price: 640000, room: 5, seenAt: isoAgo(DAY_MS) }),
    ]);
    const result = accepted(reply, 0);
    const before = await documentWhen(fixture, result.propertyId!, (d) => expect(d.adverts).toHaveLength(1));
    await fixture.teardown();
    fixture = undefined;

    fixture = await startStackFixture({}, dataDir);
    const after = await eventually(() => documentOf(fixture!, result.propertyId!), 30_000);
    expect(after.uuid).toBe(before.uuid);
    expect(after.adverts.map((a) => a.uuid)).toEqual([result.advertId]);
    expect(after).toEqual(before);

    // The restarted service still knows the advert: a redelivery changes nothing.
    const again = await ingest(fixture, [
      snapshot('restart', 'KEPT-1', { commune: { insee: '69123' }, surface: 112, price: 640000, room: 5, seenAt: before.lastCrawledAt }),
    ]);
    expect(again).toMatchObject({ accepted: 1, unchanged: 1 });
    expect(accepted(again, 0)).toMatchObject({ advertId: result.advertId, propertyId: result.propertyId, events: [] });
  }, 240_000);
});
