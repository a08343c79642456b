import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStackFixture, type StackFixture } from '@immo/stack';
import { freePort } from '@immo/testing';
import { runTour } from './tour';

const SEARCH_ID = /\/searches\/([0-9a-f-]{36})/;

describe('npm run tour against the whole stack', () => {
  let fixture: StackFixture;

  beforeAll(async () => {
    // The local inbox npm start runs, with a short batch window.
    fixture = await startStackFixture({ MAIL_BATCH_WINDOW_MS: '1000' }, undefined, { localInbox: { smtpPort: await freePort(), webPort: await freePort() } });
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('shows the match and the price drop arriving on the live stream with their latency, then their e-mail in the local inbox, prints the curl commands, and deletes its search', async () => {
    const lines: string[] = [];
    const base = fixture.stack.baseUrl;
    const result = await runTour({ baseUrl: base, apiKey: fixture.stack.apiKey, adminApiKey: fixture.stack.adminApiKey, inboxUrl: fixture.stack.inboxUrl, out: (line) => lines.push(line) });
    const text = lines.join('\n');

    // One e-mail for the new flat and its price drop, batched (one property: one block).
    expect(result.emailLatencyMs).not.toBeNull();
    expect(text.replace(/[\u00a0\u202f]/g, ' ')).toMatch(/subject +1 nouveau bien pour « Tour: flats for sale in Lyon »/);
    expect(text).toContain('to         tour@example.org');

    expect(result.matchLatencyMs).toBeGreaterThanOrEqual(0);
    expect(result.matchLatencyMs).toBeLessThan(15_000);
    expect(result.eventLatencyMs).toBeLessThan(15_000);
    expect(text).toContain(`event: match, ${result.matchLatencyMs} ms after the ingestion request`);
    expect(text).toContain(`event: ad.update.price, ${result.eventLatencyMs} ms after the ingestion request`);
    expect(text).toMatch(/title +Appartement 3 pièces 71 m² - Lyon 3e \(TOUR-\d{8}-\d{9}-[0-9a-f]+\)/);
    expect(text).toMatch(/city +Lyon \(69\d{3}\)/);
    expect(text).toMatch(/match +\/matches\/[0-9a-f-]{36}/);
    expect(text).toContain('price      289 000 → 274 550 (-5');

    // The commands a reader repeats, with the keys as variables, never their values.
    expect(text).toContain('export API_KEY=$(cat .data/api-key) ADMIN_KEY=$(cat .data/admin-api-key)');
    expect(text).toContain(`curl -X POST -H "X-API-KEY: $API_KEY" -H 'content-type: application/json'`);
    expect(text).toContain(`${base}/searches\n`);
    expect(text).toMatch(new RegExp(`curl -N -H "X-API-KEY: \\$API_KEY" ${base}/searches/[0-9a-f-]{36}/stream`));
    expect(text).toContain(`curl -X POST -H "X-API-KEY: $ADMIN_KEY" -H 'content-type: application/json'`);
    expect(text.match(new RegExp(`${base}/admin/adverts`, 'g'))).toHaveLength(2);
    expect(text).toMatch(new RegExp(`curl -X DELETE -H "X-API-KEY: \\$API_KEY" ${base}/searches/[0-9a-f-]{36}`));
    expect(text).not.toContain(fixture.stack.apiKey);
    expect(text).not.toContain(fixture.stack.adminApiKey);

    const searchId = SEARCH_ID.exec(text)?.[1];
    expect(text).toContain(`deleted    /searches/${searchId} (204)`);
    expect((await fixture.get(`/searches/${searchId}`)).status).toBe(404);
  }, 60_000);

  it('still deletes its search when interrupted (Ctrl-C) while it waits', async () => {
    const lines: string[] = [];
    const interrupt = new AbortController();
    const tour = runTour({
      baseUrl: fixture.stack.baseUrl,
      apiKey: fixture.stack.apiKey,
      adminApiKey: fixture.stack.adminApiKey,
      signal: interrupt.signal,
      out: (line) => {
        lines.push(line);
        if (line.includes('open, waiting for notifications')) interrupt.abort();
      },
    });
    await expect(tour).rejects.toThrow('interrupted');
    const searchId = SEARCH_ID.exec(lines.join('\n'))?.[1];
    expect(searchId).toBeDefined();
    expect(lines).toContain(`   deleted    /searches/${searchId} (204)`);
    expect((await fixture.get(`/searches/${searchId}`)).status).toBe(404);
  }, 30_000);

  it('names a refused key instead of failing obscurely', async () => {
    const tour = runTour({ baseUrl: fixture.stack.baseUrl, apiKey: 'imk_unknown_key', adminApiKey: fixture.stack.adminApiKey, out: () => undefined });
    await expect(tour).rejects.toThrow(/POST \/searches answered 401: the stack refused the key in API_KEY/);
  });
});

describe('npm run tour when things go wrong', () => {
  let server: Server | null = null;

  afterEach(async () => {
    const running = server;
    server = null;
    running?.closeAllConnections();
    if (running) await new Promise<void>((closed) => running.close(() => closed()));
  });

  it('fails at once when nothing listens, saying to start the stack and nothing else', async () => {
    const lines: string[] = [];
    const startedAt = Date.now();
    const url = `http://127.0.0.1:${await freePort()}`;
    const tour = runTour({ baseUrl: url, apiKey: 'k', adminApiKey: 'a', out: (line) => lines.push(line) });
    await expect(tour).rejects.toThrow(`nothing answers at ${url} (ECONNREFUSED): start the stack with npm start`);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    // Only the error (the CLI prints it as its one line): no tour, nothing created, nothing to delete.
    expect(lines).toEqual([]);
  });

  it('gives up when an alert does not come in time, says so, and still deletes its search', async () => {
    // A stand-in for the API whose stream stays silent: the tour's own deadline is what is tested.
    const searchId = '00000000-0000-4000-8000-000000000001';
    const calls: string[] = [];
    const json = { 'content-type': 'application/json' };
    server = createServer((request, response) => {
      calls.push(`${request.method} ${request.url}`);
      request.resume();
      if (request.url === '/health/ready') response.writeHead(200, json).end('{"status":"ok"}');
      else if (request.method === 'POST' && request.url === '/searches') {
        response.writeHead(201, json).end(JSON.stringify({ '@id': `/searches/${searchId}`, id: searchId, title: 'Tour' }));
      } else if (request.url === `/searches/${searchId}/stream`) response.writeHead(200, { 'content-type': 'text/event-stream' }).write(': silent\n\n');
      else if (request.url === '/admin/adverts') {
        const result = { index: 0, status: 'accepted', advertId: searchId, propertyId: searchId, events: ['AdvertPublished.v1'], warnings: [] };
        response.writeHead(200, json).end(JSON.stringify({ accepted: 1, rejected: 0, unchanged: 0, results: [result] }));
      } else if (request.method === 'DELETE') response.writeHead(204).end();
      else response.writeHead(404).end();
    });
    await new Promise<void>((listening) => server?.listen(0, '127.0.0.1', listening));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const lines: string[] = [];
    const tour = runTour({ baseUrl: url, apiKey: 'k', adminApiKey: 'a', timeoutMs: 1_000, out: (line) => lines.push(line) });
    await expect(tour).rejects.toThrow('gave up: the match did not arrive on the live stream within 1 s');
    expect(calls).toEqual(['GET /health/ready', 'POST /searches', `GET /searches/${searchId}/stream`, 'POST /admin/adverts', `DELETE /searches/${searchId}`]);
    expect(lines).toContain(`   deleted    /searches/${searchId} (204)`);
  });
});
