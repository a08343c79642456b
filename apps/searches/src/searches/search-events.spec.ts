import type { SearchRelations } from '@immo/contracts';
import type { SearchSpec } from './search-body';
import { evolveSearch, isSearchEvent, searchStream, type SearchEvent, type SearchState } from './search-events';

const spec = (overrides: Partial<SearchSpec> = {}): SearchSpec => ({
  title: 'T2 Paris',
  notificationEnabled: true,
  endpointRecipient: 'https://hooks.example.com/h',
  eventEndpoint: null,
  subscribedEvents: ['ad.update.price'],
  notificationRecipient: null,
  hidePropertyContact: null,
  criteria: { transactionType: 0, propertyTypes: [0], withCoherentPrice: true },
  ...overrides,
});
const noRelations: SearchRelations = { includedCities: [], excludedCities: [], includedDepartments: [] };

const created = (platformOrigin: string | null = 'agence.example'): SearchEvent => ({
  type: 'SearchCreated',
  data: { searchId: 's-1', accountId: 'acc-1', spec: spec(), relations: noRelations, token: 'tok', platformOrigin, createdAt: '2024-01-01T00:00:00.000Z' },
});
const updated = (platformOrigin: string | null, newSpec = spec({ title: 'T3 Lyon' })): SearchEvent => ({
  type: 'SearchUpdated',
  data: { searchId: 's-1', spec: newSpec, relations: noRelations, platformOrigin, updatedAt: '2024-02-01T00:00:00.000Z' },
});
const disabled: SearchEvent = { type: 'SearchNotificationsDisabled', data: { searchId: 's-1', reason: 'bounced', comment: null, disabledAt: '2024-03-01T00:00:00.000Z' } };
const deleted: SearchEvent = { type: 'SearchDeleted', data: { searchId: 's-1', deletedAt: '2024-04-01T00:00:00.000Z' } };

const fold = (events: SearchEvent[]) => events.reduce<SearchState | null>(evolveSearch, null);

describe('evolveSearch', () => {
  it('creates the search, updated at its creation, never alerted, not deleted', () => {
    expect(fold([created()])).toEqual({
      id: 's-1',
      accountId: 'acc-1',
      spec: spec(),
      relations: noRelations,
      token: 'tok',
      platformOrigin: 'agence.example',
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedAt: '2024-01-01T00:00:00.000Z',
      lastAlertAt: null,
      deleted: false,
      idempotency: null,
    });
  });

  it('replaces the spec and relations on update, keeping identity, token and creation time', () => {
    const relations: SearchRelations = { ...noRelations, includedCities: [] };
    const event: SearchEvent = {
      type: 'SearchUpdated',
      data: { searchId: 's-1', spec: spec({ title: 'T3 Lyon' }), relations, platformOrigin: null, updatedAt: '2024-02-01T00:00:00.000Z' },
    };
    const state = fold([created(), event]);
    expect(state).toMatchObject({ id: 's-1', accountId: 'acc-1', token: 'tok', createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-02-01T00:00:00.000Z' });
    expect(state?.spec.title).toBe('T3 Lyon');
    expect(state?.relations).toBe(relations);
  });

  it('keeps the platform origin when an update has none', () => {
    expect(fold([created('agence.example'), updated(null)])?.platformOrigin).toBe('agence.example');
  });

  it('takes the platform origin an update gives', () => {
    expect(fold([created('agence.example'), updated('autre.example')])?.platformOrigin).toBe('autre.example');
  });

  it('disables notifications, leaving the rest of the spec', () => {
    const state = fold([created(), disabled]);
    expect(state?.spec).toEqual(spec({ notificationEnabled: false }));
    expect(state?.updatedAt).toBe('2024-03-01T00:00:00.000Z');
  });

  it('marks the search deleted', () => {
    const state = fold([created(), deleted]);
    expect(state?.deleted).toBe(true);
    expect(state?.updatedAt).toBe('2024-04-01T00:00:00.000Z');
  });

  it('does not change the state it is given', () => {
    const before = fold([created()]);
    const snapshot = structuredClone(before);
    [updated(null), disabled, deleted].reduce(evolveSearch, before);
    expect(before).toEqual(snapshot);
  });

  it.each([updated('agence.example'), disabled, deleted])('leaves no search for $type before creation', (event) => {
    expect(evolveSearch(null, event)).toBeNull();
  });
});

describe('search events', () => {
  it('names the stream after the search', () => {
    expect(searchStream('s-1')).toBe('search-s-1');
  });

  it.each(['SearchCreated', 'SearchUpdated', 'SearchNotificationsDisabled', 'SearchDeleted'])('recognises %s', (type) => {
    expect(isSearchEvent(type)).toBe(true);
  });

  it.each(['AccountCreated', 'searchcreated', ''])('does not recognise %j', (type) => {
    expect(isSearchEvent(type)).toBe(false);
  });
});
