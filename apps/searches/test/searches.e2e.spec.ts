import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { CreatedAccount, IssuedKey, SearchRecord } from '@immo/contracts';
import { ROOT, startStackFixture, type StackFixture } from '@immo/stack';
import { asParisTime, freePort } from '@immo/testing';
import { z } from 'zod';

type Collection<T> = { 'hydra:member': T[]; 'hydra:totalItems': number; 'hydra:view': Record<string, string> };
type Problem = { status: number; detail?: string; violations?: { propertyPath: string; message: string }[] };

const MAX_SEARCHES = 4;
const ADMIN_CLI = join(ROOT, 'dist', 'tools', 'admin', 'src', 'main.js');

/** `npm run admin -- <args>` without the build step: the CLI as operators run it. */
async function adminCli(stack: { natsUrl: string; dataDir: string }, ...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [ADMIN_CLI, ...args], { env: { ...process.env, NATS_URL: stack.natsUrl, DATA_DIR: stack.dataDir }, timeout: 20_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}
const DAY_MS = 24 * 3600 * 1000;

const EXAMPLE: Record<string, unknown> = (() => {
  const raw = JSON.parse(readFileSync(join(ROOT, 'libs/contracts/src/listings/advert-snapshot.example.json'), 'utf8')) as Record<string, unknown>;
  delete raw['$comment'];
  return raw;
})();

const COMMUNES = [
  { insee: '69123', zipcode: '69003', name: 'Lyon', location: { lat: 45.7597, lon: 4.8553 } },
  { insee: '33063', zipcode: '33000', name: 'Bordeaux', location: { lat: 44.8378, lon: -0.5792 } },
  { insee: '31555', zipcode: '31000', name: 'Toulouse', location: { lat: 43.6045, lon: 1.444 } },
];
const WORDS = ['jardin', 'terrasse', 'cave', 'piscine'];

/** Varied adverts (type, price, surface, rooms, city, words), one property each. */
function snapshots(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const commune = COMMUNES[i % COMMUNES.length] as (typeof COMMUNES)[number];
    const surface = 20 + ((i * 37) % 160);
    const rooms = 1 + (i % 6);
    const price = Math.round(surface * (2500 + ((i * 131) % 4000)));
    return {
      ...structuredClone(EXAMPLE),
      site: 'e2e-searches',
      reference: `S-${i}`,
      url: `https://e2e-searches.example/annonces/S-${i}`,
      propertyType: i % 2,
      transactionType: 0,
      price,
      priceExcludingFees: Math.round(price * 0.95),
      surface,
      room: rooms,
      bedroom: Math.max(0, rooms - 1),
      title: `Bien ${i} ${surface} m²`,
      description: `Annonce synthétique avec ${WORDS[i % WORDS.length]} et ${WORDS[(i * 3 + 1) % WORDS.length]}.`,
      commune: { insee: commune.insee, zipcode: commune.zipcode, name: commune.name },
      location: { lat: commune.location.lat + (i % 7) * 0.003, lon: commune.location.lon + (i % 5) * 0.003 },
      seenAt: new Date(Date.now() - (i % 20) * DAY_MS).toISOString(),
    };
  });
}

const seeded = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};

/** Random criteria in a saved search's body shape. */
function randomCriteria(random: () => number): Record<string, unknown> {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const criteria: Record<string, unknown> = { transactionType: 0, propertyTypes: random() < 0.3 ? [0, 1] : [pick([0, 1])] };
  if (random() < 0.5) criteria['budgetMax'] = pick([150_000, 300_000, 500_000, 900_000]);
  if (random() < 0.4) criteria['surfaceMin'] = pick([30, 60, 100]);
  if (random() < 0.4) criteria['roomMin'] = pick([1, 2, 3, 4]);
  if (random() < 0.3) criteria['includedCities'] = [pick(['/cities/69123', '/cities/33063', '/cities/31555'])];
  if (random() < 0.3) criteria['expressions'] = [[{ word: pick(WORDS) }]];
  if (random() < 0.2) criteria['withCoherentPrice'] = false;
  if (random() < 0.3) criteria['pricePerMeterMax'] = pick([3000, 4500, 6000]);
  return criteria;
}

describe('accounts, keys and saved searches through the gateway', () => {
  let fixture: StackFixture;
  let admin: Record<string, string>;
  let alice: CreatedAccount;
  let bob: CreatedAccount;
  const as = (account: { apiKey: string }) => ({ 'X-API-KEY': account.apiKey });

  beforeAll(async () => {
    fixture = await startStackFixture({ MAX_SEARCHES_PER_ACCOUNT: String(MAX_SEARCHES), WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'hooks.test' });
    admin = { 'X-API-KEY': fixture.stack.adminApiKey };
    alice = (await fixture.send('POST', '/admin/accounts', { name: 'Alice Immo' }, admin)).body as CreatedAccount;
    bob = (await fixture.send('POST', '/admin/accounts', { name: 'Bob Invest' }, admin)).body as CreatedAccount;
    const ingest = await fixture.send('POST', '/admin/adverts', snapshots(90), admin);
    expect(ingest.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('creates accounts with a key shown once, and lists them by key id only', async () => {
    expect(alice).toMatchObject({ name: 'Alice Immo', id: expect.stringMatching(/^[0-9a-f-]{36}$/), apiKey: expect.stringMatching(/^imk_/) });
    const listed = (await fixture.get('/admin/accounts', admin)).body as Collection<{ id: string; name: string; keys: { keyId: string }[] }>;
    const names = listed['hydra:member'].map((account) => account.name);
    expect(names).toEqual(expect.arrayContaining(['Alice Immo', 'Bob Invest', 'development']));
    expect(JSON.stringify(listed)).not.toContain(alice.apiKey);
    expect(listed['hydra:member'].find((account) => account.id === alice.id)?.keys.map((key) => key.keyId)).toEqual([alice.keyId]);
    const aliceListed = listed['hydra:member'].find((account) => account.id === alice.id) as unknown as { createdAt: string; keys: { createdAt: string }[] };
    expect(alice.createdAt).toBe(asParisTime(alice.createdAt));
    expect([aliceListed.createdAt, aliceListed.keys[0]?.createdAt]).toEqual([alice.createdAt, alice.createdAt]);
  });

  it('keeps admin operations to the admin key, and names bad input', async () => {
    expect((await fixture.send('POST', '/admin/accounts', { name: 'x' }, as(alice))).status).toBe(403);
    const bad = await fixture.send('POST', '/admin/accounts', { name: '', extra: 1 }, admin);
    expect(bad.status).toBe(400);
    expect((bad.body as Problem).violations?.map((v) => v.propertyPath).sort()).toEqual(['extra', 'name']);
    expect((await fixture.send('POST', '/admin/accounts/not-a-uuid/keys', {}, admin)).status).toBe(400);
    expect((await fixture.send('POST', '/admin/accounts/00000000-0000-4000-8000-000000000000/keys', {}, admin)).status).toBe(404);
  });

  it('refuses missing and unknown keys with 401 in the problem shape', async () => {
    const missing = await fixture.get('/searches', {});
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ status: 401, detail: expect.stringContaining('X-API-KEY') });
    expect((await fixture.get('/searches', { 'X-API-KEY': `imk_0123456789ab_${'A'.repeat(43)}` })).status).toBe(401);
    // A real key id with a wrong secret.
    expect((await fixture.get('/searches', { 'X-API-KEY': `imk_${alice.keyId}_${'B'.repeat(43)}` })).status).toBe(401);
  });

  it("answers the development account's key written to the data directory", async () => {
    expect(fixture.stack.apiKey).toMatch(/^imk_/);
    expect((await fixture.get('/searches')).status).toBe(200);
  });

  describe('saved searches', () => {
    let aliceSearch: SearchRecord;

    beforeAll(async () => {
      const created = await fixture.send(
        'POST',
        '/searches',
        {
          title: 'T3 à Lyon',
          transactionType: 0,
          propertyTypes: [0],
          budgetMax: 400_000,
          includedCities: ['/cities/69123'],
          includedDepartments: ['/departments/69'],
          includedSiteCategories: ['portal'],
          notificationEnabled: true,
          endpointRecipient: 'https://hooks.test/matches',
          subscribedEvents: ['ad.update.price'],
          notificationRecipient: 'alice@example.com',
        },
        { ...as(alice), platformOrigin: 'partner-app' },
      );
      expect(created.status).toBe(201);
      aliceSearch = created.body as SearchRecord;
    });

    it('stores the record in the spec shape, relations as objects', () => {
      expect(aliceSearch).toMatchObject({
        '@context': '/contexts/Search',
        '@id': `/searches/${aliceSearch.id}`,
        '@type': 'Search',
        title: 'T3 à Lyon',
        withCoherentPrice: true,
        notificationEnabled: true,
        user: `/users/${alice.id}`,
        lastAlertAt: null,
        platformOrigin: 'partner-app',
        token: expect.any(String),
      });
      // Paris time with the offset of the day (the original's form), to the second, and now.
      for (const time of [aliceSearch.createdAt, aliceSearch.updatedAt]) {
        expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0[12]:00$/);
        expect(time).toBe(asParisTime(time));
        expect(Math.abs(Date.parse(time) - Date.now())).toBeLessThan(60_000);
      }
      expect(aliceSearch['includedCities']).toEqual([
        expect.objectContaining({ '@id': '/cities/69123', '@type': 'City', insee: '69123', name: 'Lyon', libelle: expect.stringContaining('Lyon') }),
      ]);
      expect(aliceSearch['includedSiteCategories']).toEqual([{ '@context': '/contexts/SiteCategory', '@id': '/site_categories/portal', '@type': 'SiteCategory', name: 'portal' }]);
      expect(aliceSearch['excludedSiteCategories']).toEqual([]);
      expect(aliceSearch['includedDepartments']).toEqual([
        expect.objectContaining({ '@id': '/departments/69', departmentCode: '69', name: 'Rhône', nameClean: 'rhone', chefLieu: expect.stringMatching(/^\/cities\//) }),
      ]);
    });

    it("isolates accounts: another account's search is 404 for get, update, delete and absent from its list", async () => {
      const path = `/searches/${aliceSearch.id}`;
      expect((await fixture.get(path, as(bob))).status).toBe(404);
      expect((await fixture.send('POST', path, { title: 'x', transactionType: 0, propertyTypes: [0] }, as(bob))).status).toBe(404);
      expect((await fetch(`${fixture.stack.baseUrl}${path}`, { method: 'DELETE', headers: as(bob) })).status).toBe(404);
      expect((await fixture.get(`${path}/properties`, as(bob))).status).toBe(404);
      const bobList = (await fixture.get('/searches', as(bob))).body as Collection<SearchRecord>;
      expect(bobList['hydra:member'].map((s) => s.id)).not.toContain(aliceSearch.id);
      expect((await fixture.get(path, as(alice))).status).toBe(200);
    });

    it('updates with PUT and POST as the original service does: the fields sent replace the stored ones, those left out keep their values', async () => {
      const path = `/searches/${aliceSearch.id}`;
      const before = (await fixture.get(path, as(alice))).body as SearchRecord;
      const put = await fixture.send('PUT', path, { title: 'T3 Lyon, budget revu', transactionType: 0, propertyTypes: [0, 1] }, as(alice));
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ ...before, title: 'T3 Lyon, budget revu', propertyTypes: [0, 1], updatedAt: expect.any(String) });
      // Notifications stay on, with their endpoints.
      expect(put.body).toMatchObject({ notificationEnabled: true, endpointRecipient: 'https://hooks.test/matches', subscribedEvents: ['ad.update.price'] });
      const posted = await fixture.send('POST', path, { budgetMax: 450_000, endpointRecipient: null }, as(alice));
      expect(posted.status).toBe(200);
      expect(posted.body).toEqual({ ...(put.body as SearchRecord), budgetMax: 450_000, endpointRecipient: null, updatedAt: expect.any(String) });
      // A client sends back what it read (objects for relations, server-written fields): accepted, and nothing changes.
      const roundTrip = await fixture.send('PUT', path, before, as(alice));
      expect(roundTrip.status).toBe(200);
      expect(roundTrip.body).toEqual({ ...before, updatedAt: expect.any(String) });
      expect((await fixture.get(path, as(alice))).body).toEqual(roundTrip.body);
      expect(before).toMatchObject({ id: aliceSearch.id, token: aliceSearch.token, createdAt: aliceSearch.createdAt });
    });

    it('PATCH merges a JSON merge patch: one field changes and every other stays, null resets a field to its default', async () => {
      const path = `/searches/${aliceSearch.id}`;
      const before = (await fixture.get(path, as(alice))).body as SearchRecord;
      const patched = await fixture.send('PATCH', path, { notificationEnabled: false }, { ...as(alice), 'content-type': 'application/merge-patch+json' });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual({ ...before, notificationEnabled: false, updatedAt: expect.any(String) });
      expect((await fixture.get(path, as(alice))).body).toEqual(patched.body);

      const reset = await fixture.send('PATCH', path, { budgetMax: null, withCoherentPrice: null, subscribedEvents: null, notificationEnabled: true }, as(alice));
      expect(reset.status).toBe(200);
      expect(reset.body).toEqual({ ...before, budgetMax: null, withCoherentPrice: true, subscribedEvents: [], updatedAt: expect.any(String) });
    });

    it('PATCH refuses a merged search that is not valid (400 naming the fields) and changes nothing', async () => {
      const path = `/searches/${aliceSearch.id}`;
      const before = (await fixture.get(path, as(alice))).body as SearchRecord;
      const patch = { ...as(alice), 'content-type': 'application/merge-patch+json' };
      const inverted = await fixture.send('PATCH', path, { budgetMax: 100_000, budgetMin: 900_000, notificationEnabled: false }, patch);
      expect(inverted.status).toBe(400);
      expect((inverted.body as Problem).violations?.map((v) => v.propertyPath)).toEqual(expect.arrayContaining(['budgetMin']));
      const untitled = await fixture.send('PATCH', path, { title: null, colour: 'blue' }, patch);
      expect(untitled.status).toBe(400);
      expect((untitled.body as Problem).violations?.map((v) => v.propertyPath).sort()).toEqual(['colour', 'title']);
      const notAnObject = await fixture.send('PATCH', path, [{ title: 'x' }], patch);
      expect(notAnObject.status).toBe(400);
      expect((notAnObject.body as Problem).violations?.map((v) => v.propertyPath)).toEqual(['(root)']);
      expect((await fixture.get(path, as(alice))).body).toEqual(before);
    });

    it('PATCH answers 404 for an unknown search and for another account’s, 400 for a bad id, 415 for a body it does not read', async () => {
      const patch = (path: string, account: { apiKey: string }, type = 'application/merge-patch+json') =>
        fixture.send('PATCH', path, { notificationEnabled: false }, { ...as(account), 'content-type': type });
      expect((await patch('/searches/5f0c1f9e-8a47-4d0b-9a43-3f2d0c1e7b11', alice)).status).toBe(404);
      expect((await patch(`/searches/${aliceSearch.id}`, bob)).status).toBe(404);
      expect((await patch('/searches/not-a-uuid', alice)).status).toBe(400);
      expect((await patch(`/searches/${aliceSearch.id}`, alice, 'application/xml')).status).toBe(415);
      expect((await patch(`/searches/${aliceSearch.id}`, alice, 'application/json')).status).toBe(200);
      expect((await fixture.send('PATCH', `/searches/${aliceSearch.id}`, { notificationEnabled: true }, as(alice))).status).toBe(200);
      const badJson = await fixture.send('PATCH', `/searches/${aliceSearch.id}`, '{"title": ', { ...as(alice), 'content-type': 'application/merge-patch+json' });
      expect(badJson.status).toBe(400);
      expect(((await fixture.get(`/searches/${aliceSearch.id}`, as(alice))).body as SearchRecord).notificationEnabled).toBe(true);
    });

    it('keeps both of two updates made at once', async () => {
      const created = (await fixture.send('POST', '/searches', { title: 'à deux mains', transactionType: 0, propertyTypes: [0] }, as(bob))).body as SearchRecord;
      const path = `/searches/${created.id}`;
      const updates = [{ budgetMax: 300_000 }, { surfaceMin: 30 }, { roomMin: 2 }, { notificationRecipient: 'bob@example.com' }];
      const answers = await Promise.all(updates.map((update) => fixture.send('PATCH', path, update, as(bob))));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect((await fixture.get(path, as(bob))).body).toMatchObject(Object.assign({}, ...updates) as Record<string, unknown>);
      await fetch(`${fixture.stack.baseUrl}${path}`, { method: 'DELETE', headers: as(bob) });
    });

    it('shows every field of the Search resource, [] or null when unset, as the served OpenAPI description says', async () => {
      const created = await fixture.send('POST', '/searches', { title: 'le minimum', transactionType: 0, propertyTypes: [1] }, as(bob));
      expect(created.status).toBe(201);
      const record = created.body as SearchRecord;
      expect(record).toMatchObject({
        publisherTypes: [],
        expressions: [],
        includedCities: [],
        includedZipcodesInsee: [],
        subscribedEvents: [],
        bedroomMin: null,
        roomMin: null,
        budgetMin: null,
        budgetMax: null,
        surfaceMin: null,
        landSurfaceMax: null,
        pricePerMeterMin: null,
        furnished: null,
        withVirtualTour: null,
        withCoherentPrice: true,
        lat: null,
        lon: null,
        radius: null,
        hidePropertyContact: null,
        initiatedFromDashboard: false,
        notificationEnabled: false,
        endpointRecipient: null,
        eventEndpoint: null,
        notificationRecipient: null,
        lastAlertAt: null,
      });
      const document = (await fixture.get('/docs/openapi.json', {})).body as { components: { schemas: Record<string, { required: string[] }> } };
      const searchSchema = document.components.schemas['Search'] as { required: string[] };
      expect(Object.keys(record).filter((name) => !searchSchema.required.includes(name))).toEqual([]);
      const defs = JSON.parse(JSON.stringify(document.components.schemas).replaceAll('#/components/schemas/', '#/$defs/')) as Record<string, unknown>;
      const schema = z.fromJSONSchema({ $ref: '#/$defs/Search', $defs: defs } as Parameters<typeof z.fromJSONSchema>[0]);
      expect(schema.safeParse(record).error?.issues).toBeUndefined();
      expect(schema.safeParse((await fixture.get(`/searches/${aliceSearch.id}`, as(alice))).body).error?.issues).toBeUndefined();
      // What a client reads, it may send back as it is.
      expect((await fixture.send('PUT', `/searches/${record.id}`, record, as(bob))).status).toBe(200);
      await fetch(`${fixture.stack.baseUrl}/searches/${record.id}`, { method: 'DELETE', headers: as(bob) });
    });

    it("stores the original service's includedZipcodesInsee (selecting as includedInseeCodes) and initiatedFromDashboard, and lists by the latter", async () => {
      const frank = (await fixture.send('POST', '/admin/accounts', { name: 'Frank' }, admin)).body as CreatedAccount;
      const fromDashboard = await fixture.send(
        'POST',
        '/searches',
        { title: 'Bordeaux, depuis le tableau de bord', transactionType: 0, propertyTypes: [0, 1], includedZipcodesInsee: ['33063'], initiatedFromDashboard: true },
        as(frank),
      );
      expect(fromDashboard.status).toBe(201);
      expect(fromDashboard.body).toMatchObject({ includedZipcodesInsee: ['33063'], initiatedFromDashboard: true });
      const byApi = (await fixture.send('POST', '/searches', { title: 'par API', transactionType: 0, propertyTypes: [0] }, as(frank))).body as SearchRecord;
      const id = (fromDashboard.body as SearchRecord).id;
      const titles = async (query: string) => ((await fixture.get(`/searches?${query}`, as(frank))).body as Collection<SearchRecord>)['hydra:member'].map((s) => s.title);
      expect(await titles('initiatedFromDashboard=true')).toEqual(['Bordeaux, depuis le tableau de bord']);
      expect(await titles('initiatedFromDashboard=false')).toEqual([byApi.title]);
      expect((await fixture.get('/searches?initiatedFromDashboard=true', as(frank))).headers.get('x-ignored-parameters')).toBeNull();
      expect((await fixture.get('/searches?initiatedFromDashboard=maybe', as(frank))).status).toBe(400);

      const saved = (await fixture.get(`/searches/${id}/properties?itemsPerPage=30`, as(frank))).body as Collection<{ uuid: string; city: { insee: string } }>;
      const direct = (await fixture.get('/documents/properties?transactionType=0&propertyTypes[]=0&propertyTypes[]=1&includedInseeCodes[]=33063&itemsPerPage=30', as(frank)))
        .body as Collection<{ uuid: string }>;
      expect(saved['hydra:totalItems']).toBeGreaterThan(0);
      expect(saved['hydra:member'].map((p) => p.uuid)).toEqual(direct['hydra:member'].map((p) => p.uuid));
      expect(saved['hydra:totalItems']).toBe(direct['hydra:totalItems']);

      const bad = await fixture.send('PATCH', `/searches/${id}`, { includedZipcodesInsee: ['3306'], initiatedFromDashboard: 'yes' }, as(frank));
      expect(bad.status).toBe(400);
      expect((bad.body as Problem).violations?.map((v) => v.propertyPath).sort()).toEqual(['includedZipcodesInsee[0]', 'initiatedFromDashboard']);
    });

    it('lists the caller\'s searches with the title and notification filters, title order and ignored parameters named', async () => {
      for (const title of ['Zèbre', 'appartement Bordeaux']) {
        expect((await fixture.send('POST', '/searches', { title, transactionType: 0, propertyTypes: [1] }, as(bob))).status).toBe(201);
      }
      const ordered = (await fixture.get('/searches?order[title]=asc', as(bob))).body as Collection<SearchRecord>;
      expect(ordered['hydra:member'].map((s) => s.title)).toEqual(['appartement Bordeaux', 'Zèbre']);
      const filtered = (await fixture.get('/searches?title=BORDEAUX', as(bob))).body as Collection<SearchRecord>;
      expect(filtered['hydra:member'].map((s) => s.title)).toEqual(['appartement Bordeaux']);
      expect(((await fixture.get('/searches?notificationEnabled=true', as(bob))).body as Collection<SearchRecord>)['hydra:totalItems']).toBe(0);
      const misspelt = await fixture.get('/searches?titel=x', as(bob));
      expect(misspelt.headers.get('x-ignored-parameters')).toBe('titel');
      expect((await fixture.get('/searches?order[title]=up', as(bob))).status).toBe(400);
    });

    it('names every bad field at once, and refuses malformed JSON, large bodies and bad ids', async () => {
      const bad = await fixture.send(
        'POST',
        '/searches',
        {
          transactionType: 7,
          propertyTypes: [0],
          budgetMin: 500,
          budgetMax: 100,
          colour: 'blue',
          notificationEnabled: true,
          endpointRecipient: 'http://hooks.test/x',
          eventEndpoint: 'https://127.0.0.1/x',
          subscribedEvents: ['ad.update.colour'],
          notificationRecipient: 'nobody',
          includedCities: ['/cities/99999999'],
        },
        as(alice),
      );
      expect(bad.status).toBe(400);
      const paths = (bad.body as Problem).violations?.map((v) => v.propertyPath) ?? [];
      expect(paths).toEqual(
        expect.arrayContaining(['title', 'transactionType', 'colour', 'endpointRecipient', 'eventEndpoint', 'subscribedEvents', 'notificationRecipient']),
      );
      expect(paths.some((path) => path.startsWith('budget'))).toBe(true);
      const unknownCity = await fixture.send('POST', '/searches', { title: 'x', transactionType: 0, propertyTypes: [0], includedCities: ['/cities/99999999'] }, as(alice));
      expect(unknownCity.status).toBe(400);
      expect((unknownCity.body as Problem).violations?.[0]?.propertyPath).toBe('includedCities[0]');
      expect((await fixture.send('POST', '/searches', '{"title": ', as(alice))).status).toBe(400);
      expect((await fixture.send('POST', '/searches', { title: 'x'.repeat(70_000), transactionType: 0, propertyTypes: [0] }, as(alice))).status).toBe(413);
      expect((await fixture.get('/searches/not-a-uuid', as(alice))).status).toBe(400);
      // Notifications without an endpoint are accepted: they reach the search's live stream only.
      const noEndpoint = await fixture.send('POST', '/searches', { title: 'x', transactionType: 0, propertyTypes: [0], notificationEnabled: true }, as(alice));
      expect(noEndpoint.status).toBe(201);
      expect(noEndpoint.body).toMatchObject({ notificationEnabled: true, endpointRecipient: null, eventEndpoint: null });
      await fetch(`${fixture.stack.baseUrl}/searches/${(noEndpoint.body as SearchRecord).id}`, { method: 'DELETE', headers: as(alice) });
    });

    it('answers 409 beyond the per-account limit, and deletes (204, then 404)', async () => {
      const carol = (await fixture.send('POST', '/admin/accounts', { name: 'Carol' }, admin)).body as CreatedAccount;
      const ids: string[] = [];
      for (let i = 0; i < MAX_SEARCHES; i++) {
        const created = await fixture.send('POST', '/searches', { title: `s${i}`, transactionType: 0, propertyTypes: [0] }, as(carol));
        expect(created.status).toBe(201);
        ids.push((created.body as SearchRecord).id);
      }
      expect((await fixture.send('POST', '/searches', { title: 'one too many', transactionType: 0, propertyTypes: [0] }, as(carol))).status).toBe(409);
      const response = await fetch(`${fixture.stack.baseUrl}/searches/${ids[0]}`, { method: 'DELETE', headers: as(carol) });
      expect(response.status).toBe(204);
      expect((await fixture.get(`/searches/${ids[0]}`, as(carol))).status).toBe(404);
      expect((await fixture.send('POST', '/searches', { title: 'fits again', transactionType: 0, propertyTypes: [0] }, as(carol))).status).toBe(201);
    });

    it('makes a creation retry-safe with Idempotency-Key: the same key answers the first search, another body 409, a bad key 400 naming it', async () => {
      const dave = (await fixture.send('POST', '/admin/accounts', { name: 'Dave' }, admin)).body as CreatedAccount;
      const search = { title: 'Une seule fois', transactionType: 0, propertyTypes: [0] };
      const keyed = { ...as(dave), 'Idempotency-Key': 'c1b9f1de-6f7e-4b1a-9d1e-0f2a3b4c5d6e' };
      const first = await fixture.send('POST', '/searches', search, keyed);
      const retried = await fixture.send('POST', '/searches', search, keyed);
      expect([first.status, retried.status]).toEqual([201, 201]);
      expect((retried.body as SearchRecord).id).toBe((first.body as SearchRecord).id);
      expect(((await fixture.get('/searches', as(dave))).body as Collection<SearchRecord>)['hydra:totalItems']).toBe(1);
      const other = await fixture.send('POST', '/searches', { ...search, title: 'Autre chose' }, keyed);
      expect(other.status).toBe(409);
      expect((other.body as Problem).violations?.map((v) => v.propertyPath)).toEqual(['Idempotency-Key']);
      const bad = await fixture.send('POST', '/searches', search, { ...as(dave), 'Idempotency-Key': 'espace interdite' });
      expect(bad.status).toBe(400);
      expect((bad.body as Problem).violations?.map((v) => v.propertyPath)).toEqual(['Idempotency-Key']);
    });

    it('turns notifications off with the token alone; an unknown token answers 404 with success false', async () => {
      const created = (await fixture.send('POST', '/searches', { title: 'alertes', transactionType: 0, propertyTypes: [0], notificationEnabled: true, endpointRecipient: 'https://hooks.test/m' }, as(bob))).body as SearchRecord;
      const off = await fixture.send('POST', '/public/search/disable-notifications', { searchToken: created.token, reason: 'too many' }, {});
      expect(off).toEqual({ status: 200, body: { success: true } });
      expect(((await fixture.get(`/searches/${created.id}`, as(bob))).body as SearchRecord).notificationEnabled).toBe(false);
      expect(await fixture.send('POST', '/public/search/disable-notifications', { searchToken: 'nope' }, {})).toEqual({ status: 404, body: { success: false } });
      expect((await fixture.send('POST', '/public/search/disable-notifications', { token: 'x' }, {})).status).toBe(400);
    });

    it('answers GET /searches/{id}/properties exactly as GET /documents/properties for 20 random criteria', async () => {
      const random = seeded(42);
      let nonEmpty = 0;
      for (let i = 0; i < 20; i++) {
        const criteria = randomCriteria(random);
        const created = await fixture.send('POST', '/searches', { title: `q${i}`, ...criteria }, as(alice));
        if (created.status === 409) {
          // Alice's limit: make room.
          const list = (await fixture.get('/searches', as(alice))).body as Collection<SearchRecord>;
          for (const search of list['hydra:member']) await fetch(`${fixture.stack.baseUrl}/searches/${search.id}`, { method: 'DELETE', headers: as(alice) });
          i--;
          continue;
        }
        expect(created.status).toBe(201);
        const id = (created.body as SearchRecord).id;
        const query = new URLSearchParams();
        for (const [name, value] of Object.entries(criteria)) {
          if (name === 'expressions') query.append('expressions[0][0][word]', String((value as { word: string }[][])[0]?.[0]?.word));
          else if (Array.isArray(value)) for (const item of value) query.append(`${name}[]`, String(item));
          else query.append(name, String(value));
        }
        query.append('itemsPerPage', '30');
        const direct = (await fixture.get(`/documents/properties?${query.toString()}`, as(alice))).body as Collection<{ uuid: string }>;
        const saved = (await fixture.get(`/searches/${id}/properties?itemsPerPage=30`, as(alice))).body as Collection<{ uuid: string }>;
        expect(saved['hydra:totalItems']).toBe(direct['hydra:totalItems']);
        expect(saved['hydra:member'].map((p) => p.uuid)).toEqual(direct['hydra:member'].map((p) => p.uuid));
        if (direct['hydra:totalItems'] > 0) nonEmpty++;
      }
      // The comparison means something only if most criteria select properties.
      expect(nonEmpty).toBeGreaterThanOrEqual(10);
    });

    it('keeps searches and accounts across a kill -9 and restart of the searches service', async () => {
      const created = (await fixture.send('POST', '/searches', { title: 'survit au redémarrage', transactionType: 1, propertyTypes: [1] }, as(bob))).body as SearchRecord;
      const patched = await fixture.send('PATCH', `/searches/${created.id}`, { budgetMax: 1_500, initiatedFromDashboard: true }, { ...as(bob), 'content-type': 'application/merge-patch+json' });
      expect(patched.status).toBe(200);
      const kept = patched.body as SearchRecord;
      expect(kept).toMatchObject({ budgetMax: 1_500, initiatedFromDashboard: true });
      await fixture.stack.killApp('searches');
      await fixture.stack.restartApp('searches');
      const erin = (await (async () => {
        const until = Date.now() + 30_000;
        for (;;) {
          const created = await fixture.send('POST', '/admin/accounts', { name: 'Erin' }, admin);
          if (created.status === 201 || Date.now() > until) return created.body;
          await new Promise((r) => setTimeout(r, 250));
        }
      })()) as CreatedAccount;
      expect(erin.apiKey).toMatch(/^imk_/);
      const read = await fixture.get(`/searches/${kept.id}`, as(bob));
      expect(read.status).toBe(200);
      expect(read.body).toEqual(kept);
      // Keys issued before the restart still authenticate (the gateway may have them cached: a new account's key proves the lookup).
      expect((await fixture.get('/searches', as(erin))).status).toBe(200);
      expect((await fixture.get('/searches', as(bob))).status).toBe(200);
    }, 60_000);
  });

  it('rotates keys (old and new both work) and every gateway replica refuses a revoked key within 5 s', async () => {
    const port = await freePort();
    await fixture.stack.startReplica('gateway', 'gateway-2', { PORT: String(port) });
    const second = `http://127.0.0.1:${port}`;
    const statusAt = async (base: string, key: string) => (await fetch(`${base}/searches`, { headers: { 'X-API-KEY': key } })).status;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await statusAt(second, fixture.stack.apiKey).catch(() => 0)) !== 200) await new Promise((r) => setTimeout(r, 250));

    const dave = (await fixture.send('POST', '/admin/accounts', { name: 'Dave' }, admin)).body as CreatedAccount;
    const rotated = (await fixture.send('POST', `/admin/accounts/${dave.id}/keys`, {}, admin)).body as IssuedKey;
    // Both gateways now hold both keys in their caches.
    for (const base of [fixture.stack.baseUrl, second]) {
      expect(await statusAt(base, dave.apiKey)).toBe(200);
      expect(await statusAt(base, rotated.apiKey)).toBe(200);
    }
    const revoked = await fetch(`${fixture.stack.baseUrl}/admin/accounts/${dave.id}/keys/${dave.keyId}`, { method: 'DELETE', headers: admin });
    expect(revoked.status).toBe(204);
    const started = Date.now();
    for (const base of [fixture.stack.baseUrl, second]) {
      while ((await statusAt(base, dave.apiKey)) !== 401) {
        expect(Date.now() - started).toBeLessThan(5000);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await statusAt(base, rotated.apiKey)).toBe(200);
    }
    await fixture.stack.stopApp('gateway-2');
  }, 60_000);

  it('closes a live stream within 5 s once the key it was opened with is revoked', async () => {
    const erin = (await fixture.send('POST', '/admin/accounts', { name: 'Erin' }, admin)).body as CreatedAccount;
    const spare = (await fixture.send('POST', `/admin/accounts/${erin.id}/keys`, {}, admin)).body as IssuedKey;
    const search = (await fixture.send('POST', '/searches', { title: 'Flux', transactionType: 0, propertyTypes: [0] }, { 'X-API-KEY': erin.apiKey })).body as { id: string };
    const stream = await fetch(`${fixture.stack.baseUrl}/searches/${search.id}/stream`, { headers: { 'X-API-KEY': erin.apiKey } });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const revoked = await fetch(`${fixture.stack.baseUrl}/admin/accounts/${erin.id}/keys/${erin.keyId}`, { method: 'DELETE', headers: admin });
    expect(revoked.status).toBe(204);
    const started = Date.now();
    let text = '';
    for (;;) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), 6000))]);
      if (chunk === null) throw new Error('the stream was still open 6 s after its key was revoked');
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    expect(Date.now() - started).toBeLessThan(5000);
    expect(text).toContain('revoked');
    // The account's other key still streams.
    const other = await fetch(`${fixture.stack.baseUrl}/searches/${search.id}/stream`, { headers: { 'X-API-KEY': spare.apiKey } });
    expect(other.status).toBe(200);
    await other.body?.cancel();
  }, 60_000);

  it('does the same account operations from the admin CLI over NATS', async () => {
    const created = await adminCli(fixture.stack, 'accounts', 'create', 'Frank', 'Agence');
    expect(created.code).toBe(0);
    const apiKey = /key ([0-9a-f]{12}): (imk_\S+)/.exec(created.output);
    const accountId = /account ([0-9a-f-]{36})/.exec(created.output)?.[1] as string;
    expect(apiKey).not.toBeNull();
    expect((await fixture.get('/searches', { 'X-API-KEY': apiKey?.[2] as string })).status).toBe(200);
    const listed = await adminCli(fixture.stack, 'accounts', 'list');
    expect(listed.output).toContain('Frank Agence');
    const rotated = await adminCli(fixture.stack, 'keys', 'rotate', accountId);
    expect(rotated.output).toMatch(/key [0-9a-f]{12}: imk_/);
    const revoked = await adminCli(fixture.stack, 'keys', 'revoke', accountId, apiKey?.[1] as string);
    expect(revoked).toEqual({ code: 0, output: expect.stringContaining('revoked') });
    const unknown = await adminCli(fixture.stack, 'keys', 'revoke', accountId, '000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('has no key');
    expect((await adminCli(fixture.stack, 'accounts', 'frobnicate')).code).toBe(2);
  }, 60_000);

  it('is refused by NATS without the operators\' credentials, naming the user it tried', async () => {
    const result = await adminCli({ natsUrl: fixture.stack.natsUrl, dataDir: '/nonexistent' }, 'accounts', 'list');
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/cannot reach NATS at .*AUTHORIZATION_VIOLATION|Authorization Violation/i);
  });

  it('says plainly when no stack runs', async () => {
    const result = await adminCli({ natsUrl: 'nats://127.0.0.1:1', dataDir: fixture.stack.dataDir }, 'accounts', 'list');
    expect(result.code).toBe(1);
    expect(result.output).toContain('cannot reach NATS at nats://127.0.0.1:1');
  });

  it('limits the unsubscribe route per client address (429 with Retry-After)', async () => {
    let last: Response | null = null;
    for (let i = 0; i < 12; i++) {
      last = await fetch(`${fixture.stack.baseUrl}/public/search/disable-notifications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ searchToken: `guess-${i}` }),
      });
    }
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
