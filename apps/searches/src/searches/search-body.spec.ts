import type { Violation } from '@immo/contracts';
import { parseSearchBody, type SearchBodyResult, type SearchSpec } from './search-body';
import { PrivateTargetsAllowed } from '@immo/service-kit';

const nothingAllowed = new PrivateTargetsAllowed(undefined);
const minimal = { title: 'Appartements à Paris', transactionType: 0, propertyTypes: [0] };

function specOf(body: unknown, allowed = nothingAllowed): SearchSpec {
  const result = parseSearchBody(body, allowed);
  if (!result.ok) throw new Error(`expected a valid body, got ${JSON.stringify(result.violations)}`);
  return result.spec;
}

function violationsOf(body: unknown, allowed = nothingAllowed): Violation[] {
  const result: SearchBodyResult = parseSearchBody(body, allowed);
  if (result.ok) throw new Error(`expected violations, got ${JSON.stringify(result.spec)}`);
  return result.violations;
}

const pathsOf = (violations: Violation[]) => violations.map((violation) => violation.propertyPath);

describe('parseSearchBody', () => {
  describe('a valid body', () => {
    it('gives the spec with defaults for every optional field', () => {
      expect(specOf(minimal)).toEqual({
        title: 'Appartements à Paris',
        notificationEnabled: false,
        endpointRecipient: null,
        eventEndpoint: null,
        subscribedEvents: [],
        notificationRecipient: null,
        hidePropertyContact: null,
        includedZipcodesInsee: [],
        initiatedFromDashboard: false,
        criteria: { transactionType: 0, propertyTypes: [0], withCoherentPrice: true },
      });
    });

    it('trims the title', () => {
      expect(specOf({ ...minimal, title: '  T2  ' }).title).toBe('T2');
    });

    it('keeps an explicit withCoherentPrice false', () => {
      expect(specOf({ ...minimal, withCoherentPrice: false }).criteria['withCoherentPrice']).toBe(false);
    });

    it('keeps the notification fields it is given', () => {
      const spec = specOf({
        ...minimal,
        notificationEnabled: true,
        endpointRecipient: 'https://hooks.example.com/alerts',
        eventEndpoint: 'https://hooks.example.com/events',
        subscribedEvents: ['ad.update.price', 'property.ad.create', 'ad.update.price'],
        notificationRecipient: 'someone@example.com',
        hidePropertyContact: true,
      });
      expect(spec).toMatchObject({
        notificationEnabled: true,
        endpointRecipient: 'https://hooks.example.com/alerts',
        eventEndpoint: 'https://hooks.example.com/events',
        subscribedEvents: ['ad.update.price', 'property.ad.create'],
        notificationRecipient: 'someone@example.com',
        hidePropertyContact: true,
      });
    });

    it('enables notifications with only an event endpoint', () => {
      expect(specOf({ ...minimal, notificationEnabled: true, eventEndpoint: 'https://hooks.example.com/events' }).notificationEnabled).toBe(true);
    });

    it('treats null and empty endpoints as absent', () => {
      const spec = specOf({ ...minimal, endpointRecipient: '', eventEndpoint: null, notificationRecipient: null });
      expect(spec.endpointRecipient).toBeNull();
      expect(spec.eventEndpoint).toBeNull();
      expect(spec.notificationRecipient).toBeNull();
    });

    it('accepts the read-only fields of a stored record and ignores them', () => {
      const spec = specOf({
        ...minimal,
        '@context': '/contexts/Search',
        '@id': '/searches/abc',
        '@type': 'Search',
        id: 'abc',
        token: 'secret-token',
        user: '/users/1',
        createdAt: '2024-01-01T00:00:00+00:00',
        updatedAt: '2024-01-02T00:00:00+00:00',
        lastAlertAt: null,
        platformOrigin: 'example',
      });
      expect(spec).toEqual(specOf(minimal));
    });
  });

  describe('the body itself', () => {
    it.each([
      ['null', null],
      ['text', 'text'],
      ['a number', 42],
      ['an array', [minimal]],
    ])('refuses %s as not an object, at the root', (_kind, body) => {
      expect(violationsOf(body)).toEqual([{ propertyPath: '(root)', message: 'must be a JSON object of Search fields' }]);
    });

    it('names each missing required field', () => {
      expect(violationsOf({})).toEqual(
        expect.arrayContaining([
          { propertyPath: 'title', message: 'is required' },
          { propertyPath: 'transactionType', message: 'is required' },
          { propertyPath: 'propertyTypes', message: 'is required' },
        ]),
      );
    });

    it.each(['title', 'transactionType', 'propertyTypes'])('names %s alone when only it is missing', (name) => {
      const body: Record<string, unknown> = { ...minimal };
      delete body[name];
      expect(violationsOf(body)).toEqual([{ propertyPath: name, message: 'is required' }]);
    });

    it('treats a null required field as missing', () => {
      expect(violationsOf({ ...minimal, title: null })).toEqual([{ propertyPath: 'title', message: 'is required' }]);
    });

    it('names an unknown field', () => {
      expect(violationsOf({ ...minimal, colour: 'blue' })).toEqual([{ propertyPath: 'colour', message: 'is not a Search field' }]);
    });

    it('does not take paging or sorting parameters as criteria', () => {
      expect(pathsOf(violationsOf({ ...minimal, page: 2, itemsPerPage: 10, order: { price: 'asc' } }))).toEqual(['page', 'itemsPerPage', 'order']);
    });
  });

  describe('the title', () => {
    it.each([
      ['an empty title', '', 'must not be empty'],
      ['a blank title', '   ', 'must not be empty'],
      ['a number', 42, 'must be a text value'],
      ['201 characters', 'x'.repeat(201), 'must be at most 200 characters'],
    ])('refuses %s', (_kind, title, message) => {
      expect(violationsOf({ ...minimal, title })).toEqual([{ propertyPath: 'title', message }]);
    });
  });

  describe('criteria', () => {
    it('reports a value that is not a number under its name', () => {
      expect(violationsOf({ ...minimal, budgetMin: 'abc' })).toEqual([{ propertyPath: 'budgetMin', message: 'must be a number' }]);
    });

    it('reports an inverted range under both bounds', () => {
      expect(violationsOf({ ...minimal, budgetMin: 500, budgetMax: 100 })).toEqual([
        { propertyPath: 'budgetMin', message: 'must not be greater than budgetMax (500 > 100)' },
        { propertyPath: 'budgetMax', message: 'must not be less than budgetMin (100 < 500)' },
      ]);
    });

    it('reports an unknown property type under its index', () => {
      expect(violationsOf({ ...minimal, propertyTypes: [0, 9] })).toEqual([{ propertyPath: 'propertyTypes[1]', message: 'must be one of 0, 1, 2, 3, 4, 5, 6' }]);
    });

    it('reports an unknown transaction type', () => {
      expect(violationsOf({ ...minimal, transactionType: 7 })).toEqual([{ propertyPath: 'transactionType', message: 'must be one of 0, 1' }]);
    });

    it('keeps valid criteria as given', () => {
      expect(specOf({ ...minimal, budgetMin: 100, budgetMax: 500 }).criteria).toEqual({
        transactionType: 0,
        propertyTypes: [0],
        budgetMin: 100,
        budgetMax: 500,
        withCoherentPrice: true,
      });
    });

    it('keeps the advert price bounds, which the alerts then apply', () => {
      const result = parseSearchBody({ ...minimal, advertPriceMin: 100_000, advertPriceMax: 250_000 }, nothingAllowed);
      if (!result.ok) throw new Error(JSON.stringify(result.violations));
      expect(result.spec.criteria).toMatchObject({ advertPriceMin: 100_000, advertPriceMax: 250_000 });
      expect(result.criteria.advertPrice).toEqual({ min: 100_000, max: 250_000 });
      expect(violationsOf({ ...minimal, advertPriceMax: 'cheap' })).toEqual([{ propertyPath: 'advertPriceMax', message: 'must be a number' }]);
    });

    describe('expressions', () => {
      const nested = [[{ word: 'jardin' }, { word: 'cave' }]];

      it('holds them under their one name: expression, another name in query strings, is not a Search field', () => {
        expect(violationsOf({ ...minimal, expression: nested })).toEqual([{ propertyPath: 'expression', message: 'is not a Search field' }]);
      });

      it('takes the nested structure as is', () => {
        expect(specOf({ ...minimal, expressions: nested }).criteria['expressions']).toEqual(nested);
      });

      it('reads the query-string text with the parameter name', () => {
        const text = 'expressions[0][0][word]=jardin&expressions[0][1][word]=cave';
        expect(specOf({ ...minimal, expressions: text }).criteria['expressions']).toEqual(nested);
      });

      it('reads the query-string text without the parameter name', () => {
        expect(specOf({ ...minimal, expressions: '[0][0][word]=jardin&[0][1][word]=cave' }).criteria['expressions']).toEqual(nested);
      });

      it('reads a single-term text the same as its nested form', () => {
        const fromText = specOf({ ...minimal, expressions: '[0][0][word]=jardin' }).criteria['expressions'];
        const fromNested = specOf({ ...minimal, expressions: [[{ word: 'jardin' }]] }).criteria['expressions'];
        expect(fromText).toEqual([[{ word: 'jardin' }]]);
        expect(fromText).toEqual(fromNested);
      });
    });

    describe('relations', () => {
      it('reduces objects holding an @id to their IRIs', () => {
        const spec = specOf({ ...minimal, includedCities: [{ '@id': '/cities/75056', name: 'Paris' }, '/cities/69123'] });
        expect(spec.criteria['includedCities']).toEqual(['/cities/75056', '/cities/69123']);
      });

      it('gives the same criteria for a stored relation object as for its IRI', () => {
        expect(specOf({ ...minimal, excludedCities: [{ '@id': '/cities/75056', '@type': 'City' }] }).criteria).toEqual(
          specOf({ ...minimal, excludedCities: ['/cities/75056'] }).criteria,
        );
      });
    });
  });

  describe("the original service's own fields", () => {
    it('keeps includedZipcodesInsee as upper-case INSEE codes, once each, and selects by them as includedInseeCodes', () => {
      const result = parseSearchBody({ ...minimal, includedZipcodesInsee: ['2a004', '69123', '2A004'], includedInseeCodes: ['33063'] }, nothingAllowed);
      if (!result.ok) throw new Error(JSON.stringify(result.violations));
      expect(result.spec.includedZipcodesInsee).toEqual(['2A004', '69123']);
      expect(result.spec.criteria['includedInseeCodes']).toEqual(['33063']);
      expect([...result.criteria.includedInseeCodes].sort()).toEqual(['2A004', '33063', '69123']);
    });

    it('reads a single code as a one-item list', () => {
      expect(specOf({ ...minimal, includedZipcodesInsee: '69123' }).includedZipcodesInsee).toEqual(['69123']);
    });

    it('names a bad code under includedZipcodesInsee, not the criteria name it is checked as', () => {
      expect(pathsOf(violationsOf({ ...minimal, includedZipcodesInsee: ['6912'] }))).toEqual(['includedZipcodesInsee[0]']);
    });

    it('stores initiatedFromDashboard, false unless given', () => {
      expect(specOf({ ...minimal, initiatedFromDashboard: true }).initiatedFromDashboard).toBe(true);
      expect(specOf({ ...minimal, initiatedFromDashboard: null }).initiatedFromDashboard).toBe(false);
      expect(violationsOf({ ...minimal, initiatedFromDashboard: 'yes' })).toEqual([{ propertyPath: 'initiatedFromDashboard', message: 'must be true or false' }]);
    });
  });

  describe('notifications', () => {
    it('accepts enabling notifications with no endpoint (they reach the live stream only)', () => {
      expect(specOf({ ...minimal, notificationEnabled: true, subscribedEvents: ['ad.update.price'] })).toMatchObject({
        notificationEnabled: true,
        endpointRecipient: null,
        eventEndpoint: null,
        subscribedEvents: ['ad.update.price'],
      });
    });

    it('refuses a notificationEnabled that is not a boolean', () => {
      expect(violationsOf({ ...minimal, notificationEnabled: 'yes' })).toEqual([{ propertyPath: 'notificationEnabled', message: 'must be true or false' }]);
    });

    it.each(['endpointRecipient', 'eventEndpoint'])('requires %s to be https', (field) => {
      expect(violationsOf({ ...minimal, [field]: 'http://x.example/h' })).toEqual([{ propertyPath: field, message: 'must be an https:// URL' }]);
    });

    it('refuses an endpoint that is not text', () => {
      expect(violationsOf({ ...minimal, endpointRecipient: 42 })).toEqual([{ propertyPath: 'endpointRecipient', message: 'must be an https:// URL' }]);
    });

    it.each(['https://127.0.0.1/h', 'https://10.1.2.3/h', 'https://[::1]/h', 'https://169.254.169.254/latest'])('refuses the private target %s', (url) => {
      expect(violationsOf({ ...minimal, endpointRecipient: url })).toEqual([
        { propertyPath: 'endpointRecipient', message: 'must not target a private, loopback or link-local address' },
      ]);
    });

    it('refuses a private host name', () => {
      expect(violationsOf({ ...minimal, eventEndpoint: 'https://localhost/h' })).toEqual([{ propertyPath: 'eventEndpoint', message: 'must not target a private host' }]);
    });

    it('refuses credentials in an endpoint', () => {
      expect(violationsOf({ ...minimal, endpointRecipient: 'https://user:pw@example.com/h' })).toEqual([
        { propertyPath: 'endpointRecipient', message: 'must not hold credentials' },
      ]);
    });

    it('accepts a private target that is allowed', () => {
      const spec = specOf({ ...minimal, notificationEnabled: true, endpointRecipient: 'https://127.0.0.1/h' }, new PrivateTargetsAllowed('127.0.0.1/32'));
      expect(spec.endpointRecipient).toBe('https://127.0.0.1/h');
      expect(spec.notificationEnabled).toBe(true);
    });

    it('refuses unknown event kinds', () => {
      const violations = violationsOf({ ...minimal, subscribedEvents: ['ad.update.price', 'nope'] });
      expect(pathsOf(violations)).toEqual(['subscribedEvents']);
      expect(violations[0]?.message).toMatch(/^must be one of .*ad\.update\.price/);
    });

    it('refuses subscribedEvents that is not an array', () => {
      expect(violationsOf({ ...minimal, subscribedEvents: 'ad.update.price' })).toEqual([
        { propertyPath: 'subscribedEvents', message: 'must be an array of event kinds' },
      ]);
    });

    it('refuses a notificationRecipient that is not an e-mail address', () => {
      expect(violationsOf({ ...minimal, notificationRecipient: 'not-an-email' })).toEqual([
        { propertyPath: 'notificationRecipient', message: 'must be an e-mail address' },
      ]);
    });
  });

  it('lists every bad field at once', () => {
    const violations = violationsOf({
      title: '',
      transactionType: 7,
      propertyTypes: [9],
      budgetMin: 'abc',
      colour: 'blue',
      notificationEnabled: true,
      endpointRecipient: 'http://x.example/h',
      subscribedEvents: ['nope'],
      notificationRecipient: 'not-an-email',
    });
    expect(new Set(pathsOf(violations))).toEqual(
      new Set([
        'colour',
        'title',
        'endpointRecipient',
        'subscribedEvents',
        'notificationRecipient',
        'transactionType',
        'propertyTypes[0]',
        'budgetMin',
      ]),
    );
  });
});
