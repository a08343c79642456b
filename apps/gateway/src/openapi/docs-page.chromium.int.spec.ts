import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { buildOpenApiDocument } from './openapi-document';
import { API_DESCRIPTION } from './operations';
import { startGatewayWithoutServices } from './test-double/gateway-without-services';
import { executableOnPath } from '@immo/testing';


const chromium = executableOnPath('chromium');
if (chromium === null) process.stdout.write('skipped: chromium not on PATH (the docs page in a real browser)\n');
const inChromium = chromium === null ? it.skip : it;

/** Headless Chromium's DOM of a page once its scripts ran, and its log (console messages included). */
function dumpDom(executable: string, url: string, profile: string): Promise<{ dom: string; log: string }> {
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--enable-logging=stderr', '--v=0', `--user-data-dir=${profile}`, '--virtual-time-budget=10000', '--dump-dom', url];
  return new Promise((resolve, reject) => {
    // Asynchronous: the gateway answering the browser runs in this process.
    execFile(executable, args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`chromium failed: ${error.message}\n${stderr}`));
      else resolve({ dom: stdout, log: stderr });
    });
  });
}

describe('docs page in headless Chromium', () => {
  let app: NestFastifyApplication | undefined;
  let baseUrl = '';
  let profile = '';

  beforeAll(async () => {
    if (chromium === null) return;
    ({ app, baseUrl } = await startGatewayWithoutServices());
    profile = mkdtempSync(join(tmpdir(), 'docs-chromium-'));
  });

  afterAll(async () => {
    await app?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  inChromium(`renders every operation and webhook, with no console message (CSP violation, script error)${chromium === null ? ' (skipped: chromium not on PATH)' : ''}`, async () => {
    const { dom, log } = await dumpDom(chromium!, `${baseUrl}/docs`, profile);
    const document = buildOpenApiDocument(API_DESCRIPTION) as { paths: Record<string, Record<string, unknown>>; webhooks: Record<string, unknown> };
    const operations = Object.values(document.paths).reduce((count, methods) => count + Object.keys(methods).length, 0) + Object.keys(document.webhooks).length;

    expect(dom).toContain('Property listings search and alerts');
    expect(dom.match(/class="opblock opblock-(get|post|put|patch|delete)/g)).toHaveLength(operations);
    const rendered = new Set([...dom.matchAll(/data-path="([^"]+)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&')));
    expect([...rendered].sort()).toEqual([...Object.keys(document.paths), ...Object.keys(document.webhooks)].sort());
    expect(log.split('\n').filter((line) => /:CONSOLE|Refused to|Content Security Policy/i.test(line))).toEqual([]);
  }, 90_000);
});
