import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpLoad } from './http-load';

describe('httpLoad', () => {
  let server: Server;
  let baseUrl: string;
  const seen: string[] = [];
  let open = 0;
  let mostOpen = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.url} ${req.headers['x-api-key']}`);
      open++;
      mostOpen = Math.max(mostOpen, open);
      setTimeout(() => {
        open--;
        res.statusCode = req.url === '/missing' ? 404 : 200;
        res.end('{}');
      }, 5);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('times every request, round robin over the paths, with at most `concurrency` open', async () => {
    seen.length = 0;
    mostOpen = 0;
    const result = await httpLoad({ baseUrl, headers: { 'X-API-KEY': 'k' }, paths: ['/a', '/b'], requests: 40, concurrency: 4 });
    expect(result.samples).toHaveLength(40);
    expect(Math.min(...result.samples)).toBeGreaterThanOrEqual(4);
    expect(result.wallMs).toBeGreaterThan(0);
    expect(seen.filter((line) => line === '/a k')).toHaveLength(20);
    expect(seen.filter((line) => line === '/b k')).toHaveLength(20);
    expect(mostOpen).toBeLessThanOrEqual(4);
    expect(mostOpen).toBeGreaterThan(1);
  });

  it('fails naming the path that answered an error status', async () => {
    await expect(httpLoad({ baseUrl, paths: ['/a', '/missing'], requests: 4, concurrency: 2 })).rejects.toThrow('/missing answered 404');
  });

  it('refuses a target off the loopback', () => {
    expect(() => httpLoad({ baseUrl: 'http://example.com', paths: ['/'], requests: 1, concurrency: 1 })).toThrow('loopback only');
  });
});
