import { PrivateTargetsAllowed } from '@immo/service-kit';
import { parseSearchBody, type SearchSpec } from './search-body';
import { mergedBody, storedBodyOf } from './search-update';

function specOf(body: unknown): SearchSpec {
  const result = parseSearchBody(body, new PrivateTargetsAllowed(undefined));
  if (!result.ok) throw new Error(`expected a valid body, got ${JSON.stringify(result.violations)}`);
  return result.spec;
}

const stored = specOf({
  title: 'T3 à Lyon',
  transactionType: 0,
  propertyTypes: [0, 1],
  budgetMax: 400_000,
  includedCities: ['/cities/69123'],
  expressions: [[{ word: 'jardin', options: { includes: true, strict: false } }]],
  notificationEnabled: true,
  endpointRecipient: 'https://hooks.example.com/matches',
  subscribedEvents: ['ad.update.price'],
  includedZipcodesInsee: ['69123'],
  initiatedFromDashboard: true,
});

function merged(update: unknown, merge: 'fields' | 'json-merge-patch'): Record<string, unknown> {
  const result = mergedBody(storedBodyOf(stored), update, merge);
  if (!result.ok) throw new Error(`expected a merge, got ${JSON.stringify(result.violations)}`);
  return result.body;
}

describe('storedBodyOf', () => {
  it('gives back a body that stores the same search', () => {
    expect(specOf(storedBodyOf(stored))).toEqual(stored);
  });

  it('leaves out what is unset', () => {
    const body = storedBodyOf(stored);
    expect(body).not.toHaveProperty('eventEndpoint');
    expect(body).not.toHaveProperty('hidePropertyContact');
  });

  it('reads a search stored before the original service’s own fields were read', () => {
    const older: SearchSpec = { ...stored };
    delete older.includedZipcodesInsee;
    delete older.initiatedFromDashboard;
    expect(specOf(storedBodyOf(older))).toMatchObject({ includedZipcodesInsee: [], initiatedFromDashboard: false });
  });
});

describe('mergedBody', () => {
  it.each(['fields', 'json-merge-patch'] as const)('%s: keeps every field left out', (merge) => {
    const body = merged({ title: 'T3', transactionType: 0, propertyTypes: [0] }, merge);
    expect(specOf(body)).toEqual({ ...stored, title: 'T3', criteria: { ...stored.criteria, propertyTypes: [0] } });
  });

  it.each(['fields', 'json-merge-patch'] as const)('%s: null resets a field to its default', (merge) => {
    const spec = specOf(merged({ notificationEnabled: null, withCoherentPrice: null, budgetMax: null, includedZipcodesInsee: null }, merge));
    expect(spec.notificationEnabled).toBe(false);
    expect(spec.criteria['withCoherentPrice']).toBe(true);
    expect(spec.criteria).not.toHaveProperty('budgetMax');
    expect(spec.includedZipcodesInsee).toEqual([]);
  });

  it.each(['fields', 'json-merge-patch'] as const)('%s: an array replaces the stored one', (merge) => {
    expect(merged({ subscribedEvents: ['ad.update.expired'] }, merge)['subscribedEvents']).toEqual(['ad.update.expired']);
  });

  it('json-merge-patch merges an object into the stored object; fields replaces it whole', () => {
    const withObject = mergedBody({ title: 'x', expressions: { 0: { 0: { word: 'jardin' } }, 1: { 0: { word: 'cave' } } } }, { expressions: { 1: null } }, 'json-merge-patch');
    expect(withObject).toEqual({ ok: true, body: { title: 'x', expressions: { 0: { 0: { word: 'jardin' } } } } });
    const replaced = mergedBody({ title: 'x', expressions: { 0: { 0: { word: 'jardin' } } } }, { expressions: { 1: { 0: { word: 'cave' } } } }, 'fields');
    expect(replaced).toEqual({ ok: true, body: { title: 'x', expressions: { 1: { 0: { word: 'cave' } } } } });
  });

  it('leaves the stored body as it was', () => {
    const body = storedBodyOf(stored);
    const before = structuredClone(body);
    mergedBody(body, { title: 'changed', propertyTypes: null }, 'json-merge-patch');
    mergedBody(body, { title: 'changed', propertyTypes: null }, 'fields');
    expect(body).toEqual(before);
  });

  it.each([null, [], 'text', 42])('refuses %j as an update, at the root', (update) => {
    expect(mergedBody(storedBodyOf(stored), update, 'json-merge-patch')).toEqual({ ok: false, violations: [{ propertyPath: '(root)', message: 'must be a JSON object of Search fields' }] });
  });

  it('refuses field names that would reach the prototype', () => {
    const update = JSON.parse('{"__proto__": {"title": "x"}, "title": "y"}') as unknown;
    expect(mergedBody(storedBodyOf(stored), update, 'fields')).toEqual({ ok: false, violations: [{ propertyPath: '__proto__', message: 'is not a Search field' }] });
  });
});
