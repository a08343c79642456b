import type { PropertyDocument } from '@immo/contracts';
import { compareForOrder, matches, parsePropertyCriteria, type PropertyCriteria } from '@immo/property-criteria';
import { startStackFixture, type StackFixture } from '@immo/stack';
import qs from 'qs';
import { generateDataset } from '../demo/generate-snapshots';
import { allDocuments, ingestUntilAccepted, settled } from './listings-fixture';

/** Bracket notation as the gateway reads it (qs, nested objects, arrays up to 1,000 items). */
const parseQueryString = (query: string) => qs.parse(query, { depth: 5, arrayLimit: 1000, plainObjects: true }) as Record<string, unknown>;

interface Collection {
  'hydra:member': PropertyDocument[];
  'hydra:totalItems': number;
  'hydra:view': Record<string, string>;
  'hydra:search': { 'hydra:mapping': { variable: string }[] };
}
interface Problem {
  status: number;
  violations?: { propertyPath: string; message: string }[];
}

/**
 * Every parameter of GET /documents/properties through the whole stack, against the reference
 * predicate: for each query, the ids, order and total the API answers must equal filtering every
 * stored document with `matches` and sorting with `compareForOrder`. The in-memory search index
 * answers the API, so this also proves it agrees with the predicate on real projected documents.
 */
describe('GET /documents/properties: every parameter (whole stack)', () => {
  let fixture: StackFixture;
  let documents: PropertyDocument[];

  beforeAll(async () => {
    fixture = await startStackFixture();
    const { snapshots } = generateDataset({ seed: 11, goods: 500, days: 90, multiPublisherShare: 0.3 });
    for (let i = 0; i < snapshots.length; i += 1000) await ingestUntilAccepted(fixture, snapshots.slice(i, i + 1000));
    await settled(fixture);
    documents = [...(await allDocuments(fixture)).values()];
  }, 180_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  function expected(query: string): { criteria: PropertyCriteria; ids: string[]; total: number } {
    const parsed = parsePropertyCriteria(parseQueryString(query));
    if (!parsed.ok) throw new Error(`invalid query ${query}: ${JSON.stringify(parsed.violations)}`);
    const { criteria } = parsed;
    const matching = documents.filter((doc) => matches(criteria, doc)).sort((a, b) => compareForOrder(criteria.order, a, b, criteria.sortMode));
    const first = (criteria.page - 1) * criteria.itemsPerPage;
    return { criteria, ids: matching.slice(first, first + criteria.itemsPerPage).map((doc) => doc.uuid), total: matching.length };
  }

  async function search(query: string): Promise<Collection> {
    const response = await fixture.get(`/documents/properties?${query}`);
    if (response.status !== 200) throw new Error(`${query} answered ${response.status}: ${JSON.stringify(response.body)}`);
    return response.body as Collection;
  }

  const CITY = (doc: PropertyDocument) => doc.city;

  /** One query per parameter (and per value shape); `narrows` = it must keep some properties and drop others. */
  const cases: { parameter: string; query: () => string; narrows?: boolean }[] = [
    { parameter: 'transactionType', query: () => 'transactionType=1', narrows: true },
    { parameter: 'propertyTypes[]', query: () => 'propertyTypes[]=0&propertyTypes[]=5', narrows: true },
    { parameter: 'propertyTypes (scalar)', query: () => 'propertyTypes=1', narrows: true },
    { parameter: 'publisherTypes[]', query: () => 'publisherTypes[]=0', narrows: true },
    { parameter: 'budgetMin/budgetMax', query: () => 'budgetMin=150000&budgetMax=400000', narrows: true },
    { parameter: 'advertPriceMin', query: () => 'advertPriceMin=100000', narrows: true },
    { parameter: 'advertPriceMax', query: () => 'advertPriceMax=250000', narrows: true },
    { parameter: 'advertPriceMin/Max with other advert filters', query: () => 'advertPriceMin=150000&advertPriceMax=400000&publisherTypes[]=1&energyCategories[]=D', narrows: true },
    { parameter: 'pricePerMeterMin/Max', query: () => 'pricePerMeterMin=2000&pricePerMeterMax=6000', narrows: true },
    { parameter: 'surfaceMin/Max', query: () => 'surfaceMin=40&surfaceMax=90', narrows: true },
    { parameter: 'landSurfaceMin/Max', query: () => 'landSurfaceMin=300', narrows: true },
    { parameter: 'roomMin/Max', query: () => 'roomMin=2&roomMax=3', narrows: true },
    { parameter: 'bedroomMin/Max', query: () => 'bedroomMin=2', narrows: true },
    { parameter: 'furnished', query: () => 'furnished=true', narrows: true },
    { parameter: 'expired=true', query: () => 'expired=true', narrows: true },
    { parameter: 'expired=false', query: () => 'expired=false', narrows: true },
    { parameter: 'fromUpdatedAt/toUpdatedAt', query: () => `fromUpdatedAt=${isoDay(documents, (d) => d.updatedAt, 0.3)}&toUpdatedAt=${isoDay(documents, (d) => d.updatedAt, 0.8)}`, narrows: true },
    { parameter: 'withLocation', query: () => 'withLocation=true' },
    { parameter: 'withCoherentPrice=false', query: () => 'withCoherentPrice=false' },
    { parameter: 'priceExcludingFeesMin/Max', query: () => 'priceExcludingFeesMax=250000', narrows: true },
    { parameter: 'floorQuantityMin/Max', query: () => 'floorQuantityMin=3' },
    { parameter: 'lotCountMin/Max', query: () => 'lotCountMin=10' },
    { parameter: 'condominiumFeesMin/Max', query: () => 'condominiumFeesMax=2000', narrows: true },
    { parameter: 'constructionYearMin/Max', query: () => 'constructionYearMin=1970&constructionYearMax=2000' },
    { parameter: 'feesPercentageMin/Max', query: () => 'feesPercentageMin=4', narrows: true },
    { parameter: 'feesResponsibility', query: () => 'feesResponsibility=1', narrows: true },
    { parameter: 'rentalChargesMin/Max', query: () => 'rentalChargesMin=100', narrows: true },
    { parameter: 'rentalPledgeMin/Max', query: () => 'rentalPledgeMax=1000', narrows: true },
    { parameter: 'renterFeesMin/Max', query: () => 'renterFeesMin=300', narrows: true },
    { parameter: 'inventoryPriceMin/Max', query: () => 'inventoryPriceMax=150', narrows: true },
    { parameter: 'energyCategories[]', query: () => 'energyCategories[]=A&energyCategories[]=B', narrows: true },
    { parameter: 'energyValueMin/Max', query: () => 'energyValueMax=150', narrows: true },
    { parameter: 'greenHouseGasCategories[]', query: () => 'greenHouseGasCategories[]=E', narrows: true },
    { parameter: 'greenHouseGasValueMin/Max', query: () => 'greenHouseGasValueMin=30' },
    { parameter: 'withVirtualTour', query: () => 'withVirtualTour=true' },
    { parameter: 'fromExpiredAt/toExpiredAt', query: () => `fromExpiredAt=2026-01-01&toExpiredAt=${isoDay(documents, (d) => d.expiredAt ?? d.createdAt, 0.9)}` },
    { parameter: 'includedSites[]', query: () => `includedSites[]=${documents[0]?.adverts[0]?.site ?? 'x'}`, narrows: true },
    { parameter: 'excludedSites[]', query: () => `excludedSites[]=${documents[0]?.adverts[0]?.site ?? 'x'}`, narrows: true },
    { parameter: 'includedSiteCategories[]', query: () => `includedSiteCategories[]=${documents[0]?.adverts[0]?.siteCategory ?? 'x'}`, narrows: true },
    { parameter: 'excludedSiteCategories[]', query: () => `excludedSiteCategories[]=${documents[0]?.adverts[0]?.siteCategory ?? 'x'}`, narrows: true },
    { parameter: 'eventPriceVariationMin/Max', query: () => 'eventPriceVariationMax=-1', narrows: true },
    { parameter: 'eventPriceVariationFrom/ToCreatedAt', query: () => 'eventPriceVariationMax=0&eventPriceVariationFromCreatedAt=2026-02-01' },
    { parameter: 'eventSurfaceVariationMin/Max', query: () => 'eventSurfaceVariationMin=-100' },
    { parameter: 'fromDate/toDate (property)', query: () => `fromDate=${isoDay(documents, (d) => d.createdAt, 0.2)}&toDate=${isoDay(documents, (d) => d.createdAt, 0.7)}`, narrows: true },
    { parameter: 'fromDate with sortMode=advert', query: () => `sortMode=advert&fromDate=${isoDay(documents, (d) => d.createdAt, 0.5)}`, narrows: true },
    { parameter: 'includedCities[]', query: () => `includedCities[]=/cities/${cityWith(documents, '75056')}`, narrows: true },
    { parameter: 'excludedCities[]', query: () => `excludedCities[]=/cities/${cityWith(documents, '75056')}`, narrows: true },
    { parameter: 'includedDepartments[]', query: () => 'includedDepartments[]=/departments/69&includedDepartments[]=/departments/13', narrows: true },
    { parameter: 'includedInseeCodes[]', query: () => 'includedInseeCodes[]=31555', narrows: true },
    { parameter: 'excludedInseeCodes[]', query: () => 'excludedInseeCodes[]=31555', narrows: true },
    { parameter: 'includedZipcodes[]', query: () => `includedZipcodes[]=${CITY(documents.find((d) => d.city?.zipcode) as PropertyDocument)?.zipcode ?? '00000'}`, narrows: true },
    { parameter: 'excludedZipcodes[]', query: () => `excludedZipcodes[]=${CITY(documents.find((d) => d.city?.zipcode) as PropertyDocument)?.zipcode ?? '00000'}`, narrows: true },
    { parameter: 'included places are a union', query: () => 'includedInseeCodes[]=31555&includedDepartments[]=/departments/69', narrows: true },
    { parameter: 'excludedProperties[]', query: () => `excludedProperties[]=/documents/properties/${documents[0]?.uuid}&excludedProperties[]=${documents[1]?.uuid}`, narrows: true },
    { parameter: 'lat/lon/radius', query: () => 'lat=48.8566&lon=2.3522&radius=15', narrows: true },
    { parameter: 'geoShapes', query: () => 'geoShapes[0][0][0]=4.7&geoShapes[0][0][1]=45.6&geoShapes[0][1][0]=5.0&geoShapes[0][1][1]=45.6&geoShapes[0][2][0]=5.0&geoShapes[0][2][1]=45.9&geoShapes[0][3][0]=4.7&geoShapes[0][3][1]=45.9&geoShapes[0][4][0]=4.7&geoShapes[0][4][1]=45.6', narrows: true },
    { parameter: 'geoAccuracy', query: () => 'geoAccuracy=1', narrows: true },
    { parameter: 'geoAccuracy[] (both)', query: () => 'geoAccuracy[]=1&geoAccuracy[]=2', narrows: true },
    { parameter: 'expressions (prefix)', query: () => 'expressions[0][0][word]=terras', narrows: true },
    { parameter: 'expressions (strict, two groups)', query: () => 'expressions[0][0][word]=piscine&expressions[0][0][options][strict]=true&expressions[1][0][word]=cheminee', narrows: true },
    { parameter: 'expression (the other name of expressions)', query: () => 'expression[0][0][word]=terras', narrows: true },
    { parameter: 'expressions (exclusion)', query: () => 'expressions[0][0][word]=jardin&expressions[0][0][options][includes]=false', narrows: true },
    { parameter: 'order[price]=asc', query: () => 'order[price]=asc&itemsPerPage=30' },
    { parameter: 'order[pricePerMeter]=desc', query: () => 'order[pricePerMeter]=desc&itemsPerPage=30' },
    { parameter: 'order[surface]=asc then order[price]=desc', query: () => 'order[surface]=asc&order[price]=desc&itemsPerPage=30' },
    { parameter: 'order[updatedAt]=desc', query: () => 'order[updatedAt]=desc&itemsPerPage=30' },
    { parameter: 'order[createdAt]=asc, sortMode=advert', query: () => 'order[createdAt]=asc&sortMode=advert&itemsPerPage=30' },
    { parameter: 'page (deep)', query: () => 'page=7&itemsPerPage=13' },
  ];

  it.each(cases)('$parameter', async ({ query, narrows }) => {
    const q = query();
    const want = expected(q);
    const page = await search(q);
    expect({ total: page['hydra:totalItems'], ids: page['hydra:member'].map((doc) => doc.uuid) }).toEqual({ total: want.total, ids: want.ids });
    if (narrows) {
      // The data exercise the parameter: it keeps some properties and drops others.
      const all = expected('withCoherentPrice=true').total;
      expect(want.total).toBeGreaterThan(0);
      expect(want.total).toBeLessThan(all);
    }
  });

  it('itemsPerPage=0 answers the exact count with no members; above 30 is capped', async () => {
    const countOnly = await search('itemsPerPage=0&transactionType=0');
    expect(countOnly['hydra:member']).toEqual([]);
    expect(countOnly['hydra:totalItems']).toBe(expected('transactionType=0').total);
    expect((await search('itemsPerPage=500'))['hydra:member']).toHaveLength(Math.min(30, expected('').total));
  });

  it('names ignored parameters in X-Ignored-Parameters and still answers', async () => {
    const response = await fixture.get('/documents/properties?transactionTyp=0&budgetMax=200000&foo[bar]=1');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ignored-parameters')).toBe('transactionTyp, foo');
    expect((response.body as Collection)['hydra:totalItems']).toBe(expected('budgetMax=200000').total);
    const clean = await fixture.get('/documents/properties?budgetMax=200000');
    expect(clean.headers.get('x-ignored-parameters')).toBeNull();
  });

  it('names none of the filters it honours in X-Ignored-Parameters, the advert price bounds and expression included', async () => {
    const response = await fixture.get('/documents/properties?advertPriceMin=100000&advertPriceMax=400000&withLocation=true&geoAccuracy[]=1&expression[0][0][word]=terras');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ignored-parameters')).toBeNull();
  });

  it('counts only adverts that have not expired for the advert price bounds', async () => {
    // A property whose adverts have all expired is found by no advert price, however wide.
    const allExpired = documents.filter((doc) => doc.adverts.length > 0 && doc.adverts.every((advert) => advert.expired));
    expect(allExpired.length).toBeGreaterThan(0);
    const wide = expected('advertPriceMin=0&withCoherentPrice=false');
    expect(wide.total).toBe(documents.filter((doc) => doc.adverts.some((advert) => !advert.expired)).length);
    expect((await search('advertPriceMin=0&withCoherentPrice=false'))['hydra:totalItems']).toBe(wide.total);
  });

  it('keeps the query in hydra:view links, and has no next link on the last page', async () => {
    const total = expected('transactionType=0').total;
    const last = Math.ceil(total / 10);
    const page = await search(`transactionType=0&page=${last}`);
    expect(page['hydra:view']['hydra:next']).toBeUndefined();
    expect(page['hydra:view']['hydra:previous']).toContain('transactionType=0');
    expect(page['hydra:view']['hydra:first']).toContain('transactionType=0');
    expect(page['hydra:search']['hydra:mapping'].map((m) => m.variable)).toEqual(expect.arrayContaining(['propertyTypes[]', 'order[price]', 'expressions', 'budgetMin']));
  });

  const bad: [query: string, parameters: string[]][] = [
    ['budgetMin=cheap', ['budgetMin']],
    ['transactionType=3', ['transactionType']],
    ['propertyTypes[]=9', ['propertyTypes']],
    ['energyCategories[]=Z', ['energyCategories']],
    ['fromDate=yesterday', ['fromDate']],
    ['surfaceMin=90&surfaceMax=40', ['surfaceMin', 'surfaceMax']],
    ['includedCities[]=Paris', ['includedCities']],
    ['includedDepartments[]=/regions/11', ['includedDepartments']],
    ['excludedProperties[]=not-a-uuid', ['excludedProperties']],
    ['radius=10', ['radius']],
    ['lat=123&lon=2&radius=5', ['lat']],
    ['geoShapes[0][0][0]=1&geoShapes[0][0][1]=1&geoShapes[0][1][0]=2&geoShapes[0][1][1]=2&geoShapes[0][2][0]=3&geoShapes[0][2][1]=1', ['geoShapes']],
    ['page=0', ['page']],
    ['order[price]=up', ['order[price]']],
    ['advertPriceMin=abc', ['advertPriceMin']],
    ['advertPriceMin=300000&advertPriceMax=200000', ['advertPriceMin', 'advertPriceMax']],
    ['expression[0][0][word]=jardin&expressions[0][0][word]=cave', ['expression', 'expressions']],
  ];

  it.each(bad)('answers 400 naming the parameter for %s', async (query, parameters) => {
    const response = await fixture.get(`/documents/properties?${query}`);
    expect(response.status).toBe(400);
    const paths = ((response.body as Problem).violations ?? []).map((v) => v.propertyPath);
    for (const parameter of parameters) expect(paths.some((path) => path === parameter || path.startsWith(`${parameter}[`) || path.startsWith(`${parameter}.`))).toBe(true);
  });

  it('refuses absurd sizes with 400 before any work, naming the parameter', async () => {
    const shape = (count: number) => Array.from({ length: count }, (_, i) => `geoShapes[0][${i}][0]=1&geoShapes[0][${i}][1]=1`).join('&');
    const words = Array.from({ length: 1_000 }, (_, i) => `expressions[${i}][0][word]=w${i}`).join('&');
    for (const [query, parameter] of [
      [shape(1_200), 'geoShapes'],
      [words, 'expressions'],
    ] as const) {
      const response = await fixture.get(`/documents/properties?${query}`);
      expect(response.status).toBe(400);
      const paths = ((response.body as Problem).violations ?? []).map((v) => v.propertyPath);
      expect(paths.some((path) => path === parameter || path.startsWith(`${parameter}[`))).toBe(true);
    }
    // 10,000 points do not fit in a request line: the HTTP layer refuses them (431 beyond the
    // header limit, 414 for a query over 64 KiB), never a 500.
    expect([414, 431]).toContain((await fixture.get(`/documents/properties?${shape(10_000)}`)).status);
  });

  describe('GET /indicators/price_per_meter', () => {
    function expectedStatistic(query: string) {
      const parsed = parsePropertyCriteria(parseQueryString(query), { endpoint: 'price_per_meter' });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.violations));
      const values = documents.filter((doc) => matches(parsed.criteria, doc) && doc.pricePerMeter !== null).map((doc) => doc.pricePerMeter as number);
      values.sort((a, b) => a - b);
      const average = values.reduce((sum, v) => sum + v, 0) / values.length;
      const middle = values.length >> 1;
      const median = values.length % 2 ? (values[middle] as number) : ((values[middle - 1] as number) + (values[middle] as number)) / 2;
      return { count: values.length, average, median, min: values[0] as number, max: values.at(-1) as number };
    }

    it('answers the statistic of the matching properties, with a monthly series', async () => {
      const query = 'transactionType=0&includedDepartments[]=/departments/75';
      const want = expectedStatistic(query);
      expect(want.count).toBeGreaterThan(0);
      const response = await fixture.get(`/indicators/price_per_meter?${query}`);
      expect(response.status).toBe(200);
      const [member] = (response.body as { 'hydra:member': Record<string, unknown>[] })['hydra:member'];
      expect(member?.['average']).toBeCloseTo(want.average, 1);
      expect(member?.['median']).toBeCloseTo(want.median, 1);
      expect(member?.['average_min']).toBeCloseTo((want.average + want.min) / 2, 1);
      expect(member?.['average_max']).toBeCloseTo((want.average + want.max) / 2, 1);
      expect(Object.keys(member?.['series'] as object).every((key) => /^\d{4}-\d{2}$/.test(key))).toBe(true);
      const yearly = await fixture.get(`/indicators/price_per_meter?${query}&aggregationInterval=year`);
      const [year] = (yearly.body as { 'hydra:member': { series: Record<string, number> }[] })['hydra:member'];
      expect(Object.keys(year?.series ?? {}).every((key) => /^\d{4}$/.test(key))).toBe(true);
    });

    it.each([
      ['withLocation', 'withLocation=false'],
      ['geoAccuracy[]', 'geoAccuracy[]=1'],
      ['geoShapes', 'geoShapes[0][0][0]=4.7&geoShapes[0][0][1]=45.6&geoShapes[0][1][0]=5.0&geoShapes[0][1][1]=45.6&geoShapes[0][2][0]=5.0&geoShapes[0][2][1]=45.9&geoShapes[0][3][0]=4.7&geoShapes[0][3][1]=45.9&geoShapes[0][4][0]=4.7&geoShapes[0][4][1]=45.6'],
      ['advertPriceMin/Max', 'advertPriceMin=100000&advertPriceMax=300000'],
    ])('honours %s, as the collection does, without naming it ignored', async (_parameter, filter) => {
      const query = `transactionType=0&${filter}`;
      const want = expectedStatistic(query);
      // The filter narrows the statistic's properties, so reading it changes the figures.
      expect(want.count).toBeGreaterThan(0);
      expect(want.count).toBeLessThan(expectedStatistic('transactionType=0').count);
      const response = await fixture.get(`/indicators/price_per_meter?${query}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ignored-parameters')).toBeNull();
      const [member] = (response.body as { 'hydra:member': Record<string, unknown>[] })['hydra:member'];
      expect(member?.['average']).toBeCloseTo(want.average, 1);
      expect(member?.['median']).toBeCloseTo(want.median, 1);
    });

    it('answers nulls and an empty series when nothing matches', async () => {
      const response = await fixture.get('/indicators/price_per_meter?budgetMin=999999999');
      expect((response.body as { 'hydra:member': unknown[] })['hydra:member']).toEqual([
        expect.objectContaining({ average: null, average_min: null, average_max: null, median: null, series: {} }),
      ]);
    });

    it('refuses its own bad input: a decimal where the indicator types an integer, an unknown interval', async () => {
      for (const [query, parameter] of [
        ['budgetMin=1.5', 'budgetMin'],
        ['advertPriceMax=abc', 'advertPriceMax'],
        ['geoAccuracy[]=3', 'geoAccuracy[0]'],
        ['aggregationInterval=week', 'aggregationInterval'],
      ]) {
        const response = await fixture.get(`/indicators/price_per_meter?${query}`);
        expect(response.status).toBe(400);
        expect(((response.body as Problem).violations ?? []).map((v) => v.propertyPath)).toContain(parameter);
      }
    });
  });

  describe('GET /documents/properties/{id}/similar-properties', () => {
    /** A property of the largest commune: it has neighbours of its kind. */
    const target = () => {
      const counts = new Map<string, number>();
      for (const doc of documents) counts.set(`${doc.city?.insee}:${doc.transactionType}:${doc.propertyType}`, (counts.get(`${doc.city?.insee}:${doc.transactionType}:${doc.propertyType}`) ?? 0) + 1);
      const [key] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [''];
      return documents.find((doc) => `${doc.city?.insee}:${doc.transactionType}:${doc.propertyType}` === key) as PropertyDocument;
    };

    it('answers properties of the same kind, nearby, at a close price, never the property itself', async () => {
      const property = target();
      const response = await fixture.get(`/documents/properties/${property.uuid}/similar-properties?itemsPerPage=30`);
      expect(response.status).toBe(200);
      const page = response.body as Collection;
      expect(page['hydra:member'].length).toBeGreaterThan(0);
      expect(page['hydra:totalItems']).toBeGreaterThanOrEqual(page['hydra:member'].length);
      for (const doc of page['hydra:member']) {
        expect(doc.uuid).not.toBe(property.uuid);
        expect([doc.transactionType, doc.propertyType]).toEqual([property.transactionType, property.propertyType]);
        expect(Math.abs(doc.price - property.price)).toBeLessThanOrEqual(0.3 * property.price + 1e-6);
      }
      const byPrice = await fixture.get(`/documents/properties/${property.uuid}/similar-properties?order[price]=asc&itemsPerPage=30`);
      const prices = (byPrice.body as Collection)['hydra:member'].map((doc) => doc.price);
      expect(prices).toEqual([...prices].sort((a, b) => a - b));
      const recent = await fixture.get(`/documents/properties/${property.uuid}/similar-properties?fromDate=2030-01-01`);
      expect((recent.body as Collection)['hydra:totalItems']).toBe(0);
    });

    /** Every similar property, page after page. */
    async function allSimilar(uuid: string, query: string): Promise<PropertyDocument[]> {
      const members: PropertyDocument[] = [];
      for (let page = 1; ; page++) {
        const response = await fixture.get(`/documents/properties/${uuid}/similar-properties?itemsPerPage=30&page=${page}&${query}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('x-ignored-parameters')).toBeNull();
        const collection = response.body as Collection;
        members.push(...collection['hydra:member']);
        if (members.length >= collection['hydra:totalItems'] || collection['hydra:member'].length === 0) return members;
      }
    }

    it('keeps only similar properties with a live advert priced within advertPriceMin/advertPriceMax', async () => {
      const property = target();
      const all = await allSimilar(property.uuid, '');
      const prices = all.flatMap((doc) => doc.adverts.filter((advert) => !advert.expired).map((advert) => advert.price)).sort((a, b) => a - b);
      const bound = prices[Math.floor(prices.length / 2)] as number;
      const cheap = (doc: PropertyDocument) => doc.adverts.some((advert) => !advert.expired && advert.price <= bound);
      const filtered = await allSimilar(property.uuid, `advertPriceMax=${bound}`);
      expect(filtered.length).toBeGreaterThan(0);
      expect(filtered.length).toBeLessThan(all.length);
      expect(filtered.map((doc) => doc.uuid).sort()).toEqual(all.filter(cheap).map((doc) => doc.uuid).sort());
      const bad = await fixture.get(`/documents/properties/${property.uuid}/similar-properties?advertPriceMin=cheap`);
      expect(bad.status).toBe(400);
      expect(((bad.body as Problem).violations ?? []).map((v) => v.propertyPath)).toEqual(['advertPriceMin']);
    });

    it('answers 404 for an unknown property and 400 for a malformed id or parameter', async () => {
      expect((await fixture.get('/documents/properties/00000000-0000-4000-8000-000000000000/similar-properties')).status).toBe(404);
      expect((await fixture.get('/documents/properties/nope/similar-properties')).status).toBe(400);
      const bad = await fixture.get(`/documents/properties/${target().uuid}/similar-properties?page=0`);
      expect(bad.status).toBe(400);
    });
  });
});

/** The day (YYYY-MM-DD) at the given quantile of a date field over the documents. */
function isoDay(documents: PropertyDocument[], field: (doc: PropertyDocument) => string, quantile: number): string {
  const sorted = documents.map(field).sort();
  return (sorted[Math.floor(quantile * (sorted.length - 1))] ?? '2026-01-01').slice(0, 10);
}

/** The city id of the commune with this INSEE code, as documents carry it. */
function cityWith(documents: PropertyDocument[], insee: string): number {
  return documents.find((doc) => doc.city?.insee === insee)?.city?.id ?? 0;
}
