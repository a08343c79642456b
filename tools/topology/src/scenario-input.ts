/**
 * The topology scenario's input, the same for every run so that runs can be compared: saved
 * searches with webhooks, then snapshots in three phases — new adverts (some goods listed on two
 * sites), a first price drop of some of them, a second drop of fewer.
 */

const CITIES = [
  { insee: '69123', zipcode: '69003', name: 'Lyon', lat: 45.7597, lon: 4.8553 },
  { insee: '33063', zipcode: '33000', name: 'Bordeaux', lat: 44.8378, lon: -0.5792 },
  { insee: '31555', zipcode: '31000', name: 'Toulouse', lat: 43.6045, lon: 1.444 },
] as const;

export interface ScenarioInput {
  searches: { title: string; body: Record<string, unknown> }[];
  /** Ingested in this order, phase after phase. */
  phases: Record<string, unknown>[][];
}

/** Goods are priced from 100,000 to 600,000 €; searches' budgets are spread over that range. */
const PRICE_FLOOR = 100_000;
const PRICE_SPAN = 500_000;

function good(i: number): { city: (typeof CITIES)[number]; price: number; surface: number; type: number; lat: number; lon: number } {
  const city = CITIES[i % CITIES.length] as (typeof CITIES)[number];
  // Far enough apart that no two goods are taken for one.
  return {
    city,
    price: PRICE_FLOOR + ((i * 7919) % PRICE_SPAN),
    surface: 20 + (i % 150),
    type: Math.floor(i / CITIES.length) % 2,
    lat: city.lat + ((i % 100) - 50) * 0.002,
    lon: city.lon + ((Math.floor(i / 100) % 100) - 50) * 0.002,
  };
}

function snapshot(i: number, site: string, price: number): Record<string, unknown> {
  const { city, surface, type, lat, lon } = good(i);
  const reference = `TOPO-${String(i).padStart(6, '0')}`;
  return {
    site,
    siteCategory: 'portal',
    url: `https://${site}.example/annonces/${reference}`,
    reference,
    publisher: { name: `Agence ${site} (synthetic)`, category: 'agency', type: 1 },
    title: `Appartement ${surface} m² ${reference}`,
    description: 'Annonce synthétique du test de topologie.',
    price,
    surface,
    room: 1 + (i % 5),
    propertyType: type,
    transactionType: 0,
    location: { lat, lon, accuracy: 1 },
    commune: { insee: city.insee, zipcode: city.zipcode, name: city.name },
    seenAt: new Date().toISOString(),
  };
}

/**
 * `snapshots` in all: 3/4 of them new adverts (one good in fifteen also on a second site), then
 * price drops of 2 % for 3/20 and again for 1/10 of the goods. `searches` searches, one per city,
 * property type, room count and budget, each notifying matches and price drops to the receiver.
 */
export function scenarioInput(snapshots: number, searchCount: number, receiverUrl: (path: string) => string): ScenarioInput {
  const fresh = Math.floor((snapshots * 3) / 4);
  const goods = Math.floor((fresh * 15) / 16);
  const created: Record<string, unknown>[] = [];
  for (let i = 0; i < goods; i++) {
    created.push(snapshot(i, 'topo', good(i).price));
    if (i % 15 === 0 && created.length < fresh) created.push(snapshot(i, 'topo-bis', good(i).price));
  }
  while (created.length < fresh) created.push(snapshot(created.length + goods, 'topo', good(created.length + goods).price));
  const firstDrops = Math.floor((snapshots * 3) / 20);
  const secondDrops = snapshots - created.length - firstDrops;
  const dropped = (i: number, times: number) => snapshot(i, 'topo', Math.round(good(i).price * 0.98 ** times));
  const searches = Array.from({ length: searchCount }, (_, i) => {
    const city = CITIES[i % CITIES.length] as (typeof CITIES)[number];
    const type = Math.floor(i / CITIES.length) % 2;
    const budgetMax = PRICE_FLOOR + Math.round(((i % 17) + 1) * (PRICE_SPAN / 17));
    const title = `Topologie ${String(i).padStart(3, '0')}`;
    return {
      title,
      body: {
        title,
        transactionType: 0,
        propertyTypes: [type],
        includedCities: [`/cities/${city.insee}`],
        budgetMax,
        // One room count per search: each property matches a few searches, not a tenth of them.
        roomMin: 1 + (i % 5),
        roomMax: 1 + (i % 5),
        notificationEnabled: true,
        endpointRecipient: receiverUrl(`/match/${i}`),
        eventEndpoint: receiverUrl(`/event/${i}`),
        subscribedEvents: ['ad.update.price'],
      },
    };
  });
  return {
    searches,
    phases: [created, Array.from({ length: firstDrops }, (_, k) => dropped(k * 5, 1)), Array.from({ length: secondDrops }, (_, k) => dropped(k * 5, 2))],
  };
}
