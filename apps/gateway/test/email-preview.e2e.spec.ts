import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CreatedAccount, SearchRecord } from '@immo/contracts';
import { ROOT, startStackFixture, type StackFixture } from '@immo/stack';

type Problem = { status: number; detail: string; violations?: { propertyPath: string; message: string }[] };

/** Between digit groups and before the euro sign, as fr-FR writes prices. */
const NARROW_NBSP = '\u202f';
const NBSP = '\u00a0';
const WAIT_MS = 15_000;

/** A run-unique tag: the advert and its title are found by it. */
const RUN = Date.now().toString(36);

const EXAMPLE: Record<string, unknown> = (() => {
  const raw = JSON.parse(readFileSync(join(ROOT, 'libs/contracts/src/listings/advert-snapshot.example.json'), 'utf8')) as Record<string, unknown>;
  delete raw['$comment'];
  return raw;
})();

describe('GET /searches/{id}/email-preview (whole stack)', () => {
  let fixture: StackFixture;
  let owner: Record<string, string>;
  let stranger: Record<string, string>;
  let search: SearchRecord;

  const preview = (headers: Record<string, string>, query = '') => fixture.get(`/searches/${search.id}/email-preview${query}`, headers);

  async function anAccount(name: string): Promise<Record<string, string>> {
    const created = await fixture.send('POST', '/admin/accounts', { name }, { 'X-API-KEY': fixture.stack.adminApiKey });
    if (created.status !== 201) throw new Error(`account creation answered ${created.status}`);
    return { 'X-API-KEY': (created.body as CreatedAccount).apiKey };
  }

  beforeAll(async () => {
    fixture = await startStackFixture();
    owner = await anAccount('E-mail preview owner');
    stranger = await anAccount('E-mail preview stranger');
    // No endpoint: its notifications go to the delivery log and the live stream only.
    const created = await fixture.send(
      'POST',
      '/searches',
      { title: 'Appartements Lyon 3e', transactionType: 0, propertyTypes: [0], includedCities: ['/cities/69123'], notificationEnabled: true },
      owner,
    );
    expect(created.status).toBe(201);
    search = created.body as SearchRecord;
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('answers an example built from a sample property while the search has no notification yet', async () => {
    const answer = await preview(owner);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = answer.body as string;
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain(`Exemple${NBSP}:`);
    expect(html).toContain(`«${NBSP}Appartements Lyon 3e${NBSP}»`);
    // The unsubscribe link points to the origin the request reached, with the search's token.
    expect(html).toContain(`href="${fixture.stack.baseUrl}/public/search/disable-notifications?searchToken=${encodeURIComponent(search.token)}"`);
  });

  it("answers the e-mail of the search's notifications once a matching advert came in", async () => {
    const title = `Appartement témoin ${RUN}`;
    const snapshot = {
      ...structuredClone(EXAMPLE),
      site: `e2e-email-preview-${RUN}`,
      reference: `EP-${RUN}`,
      url: `https://e2e-email-preview.example/annonces/EP-${RUN}`,
      title,
      price: 274_550,
      seenAt: new Date().toISOString(),
    };
    const ingested = await fixture.send('POST', '/admin/adverts', [snapshot], { 'X-API-KEY': fixture.stack.adminApiKey });
    expect(ingested.status).toBe(200);

    let html = '';
    for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline && !html.includes(title); ) {
      const answer = await preview(owner);
      expect(answer.status).toBe(200);
      html = answer.body as string;
      if (!html.includes(title)) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(html).toContain(title);
    expect(html).toContain(`274${NARROW_NBSP}550${NBSP}€`);
    expect(html).toContain(`href="https://e2e-email-preview.example/annonces/EP-${RUN}"`);
    expect(html).not.toContain('Exemple');
    // The advert came with a contact; the e-mail never shows one.
    expect(html).not.toContain('Camille Exemple');
    expect(html).not.toContain('01 99 00 12 34');
  });

  it("answers 404 for another account's search, as for any route of a search", async () => {
    const answer = await preview(stranger);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
  });

  it('answers 404 for a search that does not exist and 400 for a malformed id', async () => {
    expect((await fixture.get('/searches/00000000-0000-4000-8000-000000000000/email-preview', owner)).status).toBe(404);
    expect((await fixture.get('/searches/not-a-uuid/email-preview', owner)).status).toBe(400);
  });

  it('refuses a query parameter, naming it', async () => {
    const answer = await preview(owner, '?format=text&page=2');
    expect(answer.status).toBe(400);
    expect((answer.body as Problem).violations?.map((violation) => violation.propertyPath)).toEqual(['format', 'page']);
  });
});
