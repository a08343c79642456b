import type { CreatedAccount, PropertyDocument, SearchRecord } from '@immo/contracts';
import { startStackFixture, type StackFixture } from '@immo/stack';
import { freePort } from '@immo/testing';
import { aSnapshot, eventually } from './alerts-fixture';

type Collection<T> = { 'hydra:member': T[]; 'hydra:totalItems': number; 'hydra:view': Record<string, string> };
type Problem = { status: number; violations?: { propertyPath: string; message: string }[] };
type Match = { '@id': string; id: string; property: string; search: string; createdAt: string; updatedAt: string; propertyDocument?: PropertyDocument | null };

/** The Match resource of the original service, with the id this API adds. */
const MATCH_FIELDS = ['@context', '@id', '@type', 'createdAt', 'id', 'property', 'search', 'updatedAt'];
const WAIT_MS = 30_000;

const idOf = (iri: string) => iri.slice(iri.lastIndexOf('/') + 1);
const pathsOf = (body: unknown) => ((body as Problem).violations ?? []).map((v) => v.propertyPath).sort();

describe('GET /matches and /matches/{id}: the account’s matches across its searches', () => {
  let fixture: StackFixture;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  let lyon: SearchRecord;
  let bordeaux: SearchRecord;
  let deleted: SearchRecord;
  let bobs: SearchRecord;
  let deletedMatch: Match;
  let secondGateway: string;

  const matches = async (query: string, as = alice, base?: string) => {
    const response = base
      ? await fetch(`${base}/matches${query}`, { headers: as }).then(async (r) => ({ status: r.status, body: (await r.json()) as unknown, headers: r.headers }))
      : await fixture.get(`/matches${query}`, as);
    return { ...response, collection: response.body as Collection<Match> };
  };

  beforeAll(async () => {
    fixture = await startStackFixture();
    const admin = { 'X-API-KEY': fixture.stack.adminApiKey };
    const account = async (name: string) => {
      const created = await fixture.send('POST', '/admin/accounts', { name }, admin);
      return { 'X-API-KEY': (created.body as CreatedAccount).apiKey };
    };
    alice = await account('Matches e2e A');
    bob = await account('Matches e2e B');
    const search = async (as: Record<string, string>, title: string, extra: Record<string, unknown>) =>
      (await fixture.send('POST', '/searches', { title, transactionType: 0, propertyTypes: [0], ...extra }, as)).body as SearchRecord;
    lyon = await search(alice, 'Lyon', { includedCities: ['/cities/69123'] });
    bordeaux = await search(alice, 'Bordeaux', { includedCities: ['/cities/33063'] });
    deleted = await search(alice, 'Lyon, then deleted', { includedCities: ['/cities/69123'] });
    bobs = await search(bob, 'Everywhere', {});
    // One at a time, so that the matches are created in a known order.
    for (const place of ['lyon', 'lyon', 'bordeaux', 'lyon'] as const) {
      const ingested = await fixture.send('POST', '/admin/adverts', [aSnapshot({}, place)], admin);
      expect(ingested.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const total = async (search: SearchRecord, as: Record<string, string>) =>
      ((await fixture.get(`/searches/${search.id}/matches`, as)).body as Collection<Match>)['hydra:totalItems'];
    await eventually(
      async () => [await total(lyon, alice), await total(bordeaux, alice), await total(deleted, alice), await total(bobs, bob)],
      (totals) => totals.join() === '3,1,3,4',
      WAIT_MS,
    );
    deletedMatch = ((await fixture.get(`/searches/${deleted.id}/matches`, alice)).body as Collection<Match>)['hydra:member'][0] as Match;
    expect((await fetch(`${fixture.stack.baseUrl}/searches/${deleted.id}`, { method: 'DELETE', headers: alice })).status).toBe(204);

    const port = await freePort();
    await fixture.stack.startReplica('gateway', 'gateway-2', { PORT: String(port) });
    secondGateway = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await fetch(`${secondGateway}/health/ready`).then((r) => r.status, () => 0)) !== 200) await new Promise((r) => setTimeout(r, 100));
  }, 180_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('lists the caller’s matches of its live searches, newest first, as Match resources', async () => {
    const { status, collection } = await matches('');
    expect(status).toBe(200);
    expect(collection['hydra:totalItems']).toBe(4);
    const members = collection['hydra:member'];
    for (const member of members) {
      expect(Object.keys(member).sort()).toEqual(MATCH_FIELDS);
      expect(member).toMatchObject({ '@context': '/contexts/Match', '@type': 'Match', '@id': `/matches/${member.id}` });
      expect(member.property).toMatch(/^\/documents\/properties\/[0-9a-f-]{36}$/);
    }
    expect(new Set(members.map((m) => m.search))).toEqual(new Set([`/searches/${lyon.id}`, `/searches/${bordeaux.id}`]));
    const times = members.map((m) => m.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(members.map((m) => m.id)).not.toContain(deletedMatch.id);

    const ascending = (await matches('?order[createdAt]=asc')).collection['hydra:member'];
    expect(ascending.map((m) => m.id)).toEqual(members.map((m) => m.id).reverse());
  });

  it('pages with page and itemsPerPage, and refuses bad paging naming the parameter', async () => {
    const first = await matches('?itemsPerPage=3');
    expect(first.collection['hydra:member']).toHaveLength(3);
    expect(first.collection['hydra:view']).toMatchObject({ 'hydra:next': '/matches?itemsPerPage=3&page=2', 'hydra:last': '/matches?itemsPerPage=3&page=2' });
    const second = await matches('?itemsPerPage=3&page=2');
    expect(second.collection['hydra:member']).toHaveLength(1);
    const all = (await matches('')).collection['hydra:member'].map((m) => m.id);
    expect([...first.collection['hydra:member'], ...second.collection['hydra:member']].map((m) => m.id)).toEqual(all);

    for (const [query, parameter] of [['?page=0', 'page'], ['?itemsPerPage=31', 'itemsPerPage'], ['?order[createdAt]=up', 'order[createdAt]'], ['?search=lyon', 'search[0]'], ['?property=/cities/1', 'property[0]']] as const) {
      const refused = await matches(query);
      expect(refused.status).toBe(400);
      expect(pathsOf(refused.body)).toEqual([parameter]);
    }
  });

  it('filters by search and by property, IRIs or bare ids, and names unknown parameters', async () => {
    const ofLyon = await matches(`?search=/searches/${lyon.id}`);
    expect(ofLyon.collection['hydra:totalItems']).toBe(3);
    expect(ofLyon.collection['hydra:member'].every((m) => m.search === `/searches/${lyon.id}`)).toBe(true);
    expect((await matches(`?search=${bordeaux.id}`)).collection['hydra:totalItems']).toBe(1);
    expect((await matches(`?search[]=${bordeaux.id}&search[]=/searches/${lyon.id}`)).collection['hydra:totalItems']).toBe(4);
    expect((await matches(`?search=${deleted.id}`)).collection['hydra:totalItems']).toBe(0);

    const match = ofLyon.collection['hydra:member'][1] as Match;
    const byProperty = await matches(`?property=${match.property}`);
    expect(byProperty.collection['hydra:member'].map((m) => m.id)).toEqual([match.id]);
    expect((await matches(`?property=/properties/${idOf(match.property)}`)).collection['hydra:totalItems']).toBe(1);
    expect((await matches(`?property=${idOf(match.property)}&search=${bordeaux.id}`)).collection['hydra:totalItems']).toBe(0);

    const unknown = await matches('?colour=blue&page=1');
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get('x-ignored-parameters')).toBe('colour');
  });

  it('never shows another account’s matches', async () => {
    const bobsMatches = (await matches('', bob)).collection;
    expect(bobsMatches['hydra:totalItems']).toBe(4);
    expect(bobsMatches['hydra:member'].every((m) => m.search === `/searches/${bobs.id}`)).toBe(true);
    // Alice naming Bob's search, or a property they share, sees only her own.
    expect((await matches(`?search=${bobs.id}`)).collection['hydra:totalItems']).toBe(0);
    const shared = bobsMatches['hydra:member'][0] as Match;
    const hers = (await matches(`?property=${shared.property}`)).collection['hydra:member'];
    expect(hers.every((m) => m.search !== `/searches/${bobs.id}`)).toBe(true);

    expect((await fixture.get(`/matches/${shared.id}`, alice)).status).toBe(404);
    expect((await fixture.get(`/matches/${shared.id}`, bob)).status).toBe(200);
  });

  it('answers one match, with its PropertyDocument when asked; 404 for unknown or deleted, 400 for a malformed id', async () => {
    const [listed] = (await matches('')).collection['hydra:member'] as [Match];
    const one = await fixture.get(`/matches/${listed.id}`, alice);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(listed);

    const withDocument = (await fixture.get(`/matches/${listed.id}?withPropertyDocument=true`, alice)).body as Match;
    expect(Object.keys(withDocument).sort()).toEqual([...MATCH_FIELDS, 'propertyDocument'].sort());
    expect(withDocument.propertyDocument?.uuid).toBe(idOf(listed.property));
    const embedded = (await matches('?withPropertyDocument=true&itemsPerPage=2')).collection['hydra:member'];
    expect(embedded.map((m) => m.propertyDocument?.['@id'])).toEqual(embedded.map((m) => m.property));

    expect((await fixture.get(`/matches/${deletedMatch.id}`, alice)).status).toBe(404);
    expect((await fixture.get('/matches/00000000-0000-4000-8000-000000000000', alice)).status).toBe(404);
    const malformed = await fixture.get('/matches/42', alice);
    expect(malformed.status).toBe(400);
    expect(pathsOf(malformed.body)).toEqual(['id']);
    expect(pathsOf((await fixture.get(`/matches/${listed.id}?withPropertyDocument=maybe`, alice)).body)).toEqual(['withPropertyDocument']);
  });

  it('answers the same from either gateway replica', async () => {
    for (const query of ['', `?search=${lyon.id}&order[createdAt]=asc`, '?itemsPerPage=2&page=2']) {
      const [first, second] = [await matches(query), await matches(query, alice, secondGateway)];
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
    }
  });
});
