import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type StackFixture } from '@immo/stack';

/**
 * Ingests the documented advert snapshot example (a flat for sale in Lyon 3e) with the admin key
 * and answers its property's id once the property can be read and searched: its document is
 * committed before its row reaches the search index, so being readable is not enough.
 */
export async function ingestExampleProperty(fixture: StackFixture, timeoutMs = 15_000): Promise<string> {
  const example = JSON.parse(readFileSync(join(ROOT, 'libs', 'contracts', 'src', 'listings', 'advert-snapshot.example.json'), 'utf8')) as Record<string, unknown>;
  const ingested = await fixture.send('POST', '/admin/adverts', [example], { 'X-API-KEY': fixture.stack.adminApiKey });
  const propertyId = (ingested.body as { results: { propertyId?: string }[] }).results[0]?.propertyId;
  if (propertyId === undefined) throw new Error(`the example snapshot was not accepted: ${JSON.stringify(ingested.body)}`);
  const deadline = Date.now() + timeoutMs;
  const searchable = async () => {
    const page = (await fixture.get('/documents/properties?itemsPerPage=30')).body as { 'hydra:member'?: { uuid: string }[] };
    return (page['hydra:member'] ?? []).some((document) => document.uuid === propertyId);
  };
  while ((await fixture.get(`/documents/properties/${propertyId}`)).status !== 200 || !(await searchable())) {
    if (Date.now() > deadline) throw new Error(`property ${propertyId} was not readable and searchable within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return propertyId;
}
