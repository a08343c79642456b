/**
 * Content negotiation through the gateway with every service up, as API Platform does it:
 * JSON-LD by default, plain JSON for `Accept: application/json`, 406 for what neither is, and
 * bodies read as `application/ld+json` as well as `application/json`.
 */
import { startStackFixture, type StackFixture } from '@immo/stack';
import { ingestExampleProperty } from './example-property';

describe('content negotiation end to end (whole stack over HTTP)', () => {
  let fixture: StackFixture;
  let propertyId: string;

  const get = (path: string, accept?: string) => fetch(`${fixture.stack.baseUrl}${path}`, { headers: { 'X-API-KEY': fixture.stack.apiKey, ...(accept ? { accept } : {}) } });

  beforeAll(async () => {
    fixture = await startStackFixture();
    propertyId = await ingestExampleProperty(fixture);
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('serves the property collection as application/ld+json without Accept and for application/ld+json', async () => {
    for (const accept of [undefined, 'application/ld+json', '*/*']) {
      const answer = await get('/documents/properties?itemsPerPage=5&colour=blue', accept);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
      expect(answer.headers.get('x-ignored-parameters')).toBe('colour');
      const body = (await answer.json()) as { '@type': string; 'hydra:member': { uuid: string }[]; 'hydra:totalItems': number };
      expect(body).toMatchObject({ '@context': '/contexts/PropertyDocument', '@type': 'hydra:Collection', 'hydra:totalItems': 1 });
      expect(body['hydra:member'].map((document) => document.uuid)).toEqual([propertyId]);
    }
  });

  it('serves a collection as the plain array of its members for application/json, and an item without its JSON-LD keys', async () => {
    const collection = await get('/documents/properties?itemsPerPage=5&colour=blue', 'application/json');
    expect(collection.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(collection.headers.get('x-ignored-parameters')).toBe('colour');
    const members = (await collection.json()) as Record<string, unknown>[];
    expect(Array.isArray(members)).toBe(true);
    expect(members.map((document) => document['uuid'])).toEqual([propertyId]);
    expect(JSON.stringify(members)).not.toMatch(/"@(context|id|type)"/);

    const item = await get(`/documents/properties/${propertyId}`, 'application/json');
    expect(item.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const document = (await item.json()) as Record<string, unknown>;
    expect(document).toMatchObject({ uuid: propertyId, transactionType: 0 });
    expect(Object.keys(document).filter((key) => key.startsWith('@'))).toEqual([]);

    const cities = await get('/cities?insee=69123', 'application/json');
    expect((await cities.json()) as unknown).toEqual([expect.objectContaining({ insee: '69123' })]);
  });

  it('weighs q-values', async () => {
    expect((await get('/', 'application/ld+json;q=0.5, application/json')).headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await get('/', 'application/json;q=0.5, application/ld+json')).headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
  });

  it('refuses text/html and application/xml with a 406 problem, before asking any service', async () => {
    for (const accept of ['text/html', 'application/xml']) {
      const answer = await get(`/documents/properties/${propertyId}`, accept);
      expect(answer.status).toBe(406);
      expect(answer.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await answer.json()).toMatchObject({ '@type': 'hydra:Error', status: 406, detail: expect.stringMatching(/application\/ld\+json/) });
    }
    // Nothing was written: a refused create leaves no search behind.
    const refused = await fetch(`${fixture.stack.baseUrl}/searches`, {
      method: 'POST',
      headers: { 'X-API-KEY': fixture.stack.apiKey, 'content-type': 'application/json', accept: 'application/xml' },
      body: JSON.stringify({ title: 'Refused', transactionType: 0, propertyTypes: [0] }),
    });
    expect(refused.status).toBe(406);
    const searches = (await (await get('/searches')).json()) as { 'hydra:member': { title: string }[] };
    expect(searches['hydra:member'].map((search) => search.title)).not.toContain('Refused');
  });

  it('keeps the media types of routes that pick their own, whatever Accept says', async () => {
    expect((await get('/health/live', 'text/html')).headers.get('content-type')).toMatch(/^application\/json/);
    expect((await get('/docs', 'text/html')).headers.get('content-type')).toMatch(/^text\/html/);
    expect((await get('/metrics', 'text/plain')).headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('reads request bodies sent as application/ld+json, and answers errors as application/problem+json for a JSON client', async () => {
    const created = await fetch(`${fixture.stack.baseUrl}/searches`, {
      method: 'POST',
      headers: { 'X-API-KEY': fixture.stack.apiKey, 'content-type': 'application/ld+json', accept: 'application/ld+json' },
      body: JSON.stringify({ title: 'Sent as JSON-LD', transactionType: 0, propertyTypes: [0] }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
    expect(await created.json()).toMatchObject({ '@type': 'Search', title: 'Sent as JSON-LD' });

    const invalid = await fetch(`${fixture.stack.baseUrl}/searches`, {
      method: 'POST',
      headers: { 'X-API-KEY': fixture.stack.apiKey, 'content-type': 'application/ld+json', accept: 'application/json' },
      body: JSON.stringify({ title: 'No types' }),
    });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await invalid.json()).toMatchObject({ violations: expect.arrayContaining([expect.objectContaining({ propertyPath: 'transactionType' })]) });
  });
});
