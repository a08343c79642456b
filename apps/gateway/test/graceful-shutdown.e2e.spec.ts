import { request } from 'node:http';
import type { CreatedAccount, IngestAdvertsReply, PropertyDocument, SearchRecord } from '@immo/contracts';
import { startStackFixture, type StackFixture } from '@immo/stack';
import { freePort } from '@immo/testing';

type Collection<T> = { 'hydra:member': T[]; 'hydra:totalItems': number };

const SHUTDOWN_BOUND_MS = 20_000;

function snapshot(i: number): Record<string, unknown> {
  const reference = `GS-${process.pid}-${String(i).padStart(6, '0')}`;
  return {
    site: 'graceful',
    siteCategory: 'portal',
    url: `https://graceful.example/annonces/${reference}`,
    reference,
    publisher: { name: 'Agence Graceful (synthetic)', category: 'agency', type: 1 },
    title: `Appartement ${reference}`,
    description: 'Annonce synthétique du test d’arrêt.',
    price: 150_000 + i * 1_000,
    surface: 30 + (i % 90),
    room: 1 + (i % 4),
    propertyType: 0,
    transactionType: 0,
    location: { lat: 45.70 + (i % 50) * 0.003, lon: 4.80 + Math.floor(i / 50) * 0.003, accuracy: 1 },
    commune: { insee: '69123', zipcode: '69003', name: 'Lyon' },
    seenAt: new Date().toISOString(),
  };
}

describe('graceful shutdown on SIGTERM', () => {
  let fixture: StackFixture;
  let key: string;

  beforeAll(async () => {
    fixture = await startStackFixture();
    key = ((await fixture.send('POST', '/admin/accounts', { name: 'graceful' }, { 'X-API-KEY': fixture.stack.adminApiKey })).body as CreatedAccount).apiKey;
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('stops listings under load with no 5xx but clean 503s, within the bound, and loses no accepted snapshot', async () => {
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const accepted = new Set<string>();
    let running = true;
    let next = 0;
    const ingest = (async () => {
      while (running) {
        const batch = Array.from({ length: 10 }, () => snapshot(next++));
        const response = await fetch(`${fixture.stack.baseUrl}/admin/adverts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-API-KEY': fixture.stack.adminApiKey },
          body: JSON.stringify(batch),
        });
        count(response.status);
        if (response.status === 200) {
          for (const result of ((await response.json()) as IngestAdvertsReply).results) if (result.status === 'accepted') accepted.add(result.advertId);
        } else {
          await response.arrayBuffer();
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const queries = Array.from({ length: 2 }, async () => {
      while (running) {
        const response = await fetch(`${fixture.stack.baseUrl}/documents/properties?itemsPerPage=5&order[price]=asc`, { headers: { 'X-API-KEY': key } });
        count(response.status);
        await response.arrayBuffer();
      }
    });

    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stopping = Date.now();
    await fixture.stack.stopApp('listings');
    const stoppedIn = Date.now() - stopping;
    const listingsExit = fixture.stack.exitStatus('listings');
    // The load goes on against the stopped service (clean 503s), then ends before the restart: a
    // service still loading its index after a restart is another matter than stopping.
    await new Promise((resolve) => setTimeout(resolve, 500));
    running = false;
    await Promise.all([ingest, ...queries]);
    await fixture.stack.restartApp('listings');
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (await fetch(`${fixture.stack.baseUrl}/health/ready`)).status !== 200) await new Promise((r) => setTimeout(r, 200));

    expect(stoppedIn).toBeLessThan(SHUTDOWN_BOUND_MS);
    // It stopped by itself, having finished its work: not killed, not past its own deadline.
    expect(listingsExit).toEqual({ code: 0, signal: null });
    const failures = [...statuses.entries()].filter(([status]) => status >= 500 && status !== 503);
    expect(failures).toEqual([]);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(10);
    expect(accepted.size).toBeGreaterThan(0);

    // Every accepted snapshot is in a property once listings is back.
    const found = new Set<string>();
    const settle = Date.now() + 30_000;
    while (Date.now() < settle) {
      found.clear();
      for (let page = 1; ; page++) {
        const members = ((await fixture.get(`/documents/properties?includedSites[]=graceful&itemsPerPage=30&page=${page}&order[price]=asc`, { 'X-API-KEY': key })).body as Collection<PropertyDocument>)['hydra:member'];
        for (const property of members) for (const advert of property.adverts) found.add(advert.uuid);
        if (members.length < 30) break;
      }
      if ([...accepted].every((id) => found.has(id))) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect([...accepted].filter((id) => !found.has(id))).toEqual([]);
  }, 120_000);

  it('stops a gateway promptly: its open event streams end cleanly and the process exits within the bound', async () => {
    const port = await freePort();
    await fixture.stack.startReplica('gateway', 'gateway-2', { PORT: String(port) });
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await fetch(`${base}/health/live`).then((r) => r.status, () => 0)) !== 200) await new Promise((r) => setTimeout(r, 100));
    const search = (await fixture.send('POST', '/searches', { title: 'Stream', transactionType: 0, propertyTypes: [0] }, { 'X-API-KEY': key })).body as SearchRecord;
    const ended = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${base}/searches/${search.id}/stream`, { headers: { 'X-API-KEY': key } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopping = Date.now();
    await fixture.stack.stopApp('gateway-2');
    const stoppedIn = Date.now() - stopping;
    const stream = await ended;
    expect(stream.status).toBe(200);
    expect(stream.body).toContain('the server is stopping');
    expect(stoppedIn).toBeLessThan(5_000);
    // The other gateway goes on serving.
    expect((await fetch(`${fixture.stack.baseUrl}/health/live`)).status).toBe(200);
  }, 60_000);
});
