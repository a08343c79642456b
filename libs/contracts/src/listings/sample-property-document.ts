/**
 * A sample property document: a 3-room flat for sale in Lyon 3e with one advert (synthetic data).
 * The webhook tester sends it when listings holds no property yet, and tests build their
 * documents from it.
 */
import type { Advert, City, PropertyDocument } from './property-document';
import { PROPERTY_DOCUMENT_CONTEXT, PROPERTY_DOCUMENT_TYPE } from './property-document';

export const SAMPLE_PROPERTY_UUID = '0b6f7a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';

export function sampleCity(): City {
  return {
    id: 69383,
    cityParentId: 69123,
    name: 'Lyon 3e Arrondissement',
    originalName: 'Lyon 3e Arrondissement',
    insee: '69383',
    zipcode: '69003',
    open: true,
    hasGroupedByName: false,
    hasGroupedByZipcode: false,
    groupedCityNames: [],
    groupedCityZipcodes: [],
    country: { code: 'FR', id: 1, name: 'France' },
    department: { code: '69', id: 69, name: 'Rhône' },
    region: { code: '84', id: 84, name: 'Auvergne-Rhône-Alpes' },
    locations: { lat: 45.7597, lon: 4.8553 },
  };
}

export function sampleAdvert(): Advert {
  return {
    uuid: '1a2b3c4d-0000-4000-8000-000000000001',
    url: 'https://synthetic-portal-a.example/annonces/SPA-1',
    title: 'Appartement 3 pièces 64 m²',
    description: 'Bel appartement lumineux, travaux à prévoir dans la cuisine.',
    price: 289_000,
    priceExcludingFees: 275_000,
    feesPercentage: 5.09,
    feesResponsibility: 1,
    condominiumFees: 1800,
    rentalCharges: null,
    rentalPledge: null,
    renterFees: null,
    inventoryPrice: null,
    surface: 64,
    landSurface: null,
    room: 3,
    bedroom: 2,
    floor: 4,
    floorQuantity: 6,
    lotCount: 24,
    constructionYear: 1965,
    elevator: true,
    furnished: false,
    energy: { category: 'D', value: 212 },
    greenHouseGas: { category: 'E', value: 52 },
    features: ['balcon'],
    pictures: [],
    picturesRemote: [],
    virtualTour: null,
    contact: null,
    publisher: { category: 'agency', name: 'Agence Exemple (synthetic)', type: 1 },
    events: [],
    createdAt: '2026-02-01T10:00:00+00:00',
    updatedAt: '2026-02-20T10:00:00+00:00',
    lastCrawledAt: '2026-02-20T10:00:00+00:00',
    site: 'synthetic-portal-a',
    siteCategory: 'portal',
    expired: false,
    expiredAt: null,
    geoAccuracy: null,
  };
}

export function samplePropertyDocument(uuid: string = SAMPLE_PROPERTY_UUID): PropertyDocument {
  return {
    '@context': PROPERTY_DOCUMENT_CONTEXT,
    '@id': `/documents/properties/${uuid}`,
    '@type': PROPERTY_DOCUMENT_TYPE,
    uuid,
    property: `/properties/${uuid}`,
    adverts: [sampleAdvert()],
    title: 'Appartement 3 pièces 64 m²',
    description: 'Bel appartement lumineux, travaux à prévoir dans la cuisine.',
    propertyType: 0,
    transactionType: 0,
    publisherTypes: [1],
    price: 289_000,
    pricePerMeter: 4515.63,
    surface: 64,
    landSurface: null,
    room: 3,
    bedroom: 2,
    floor: 4,
    elevator: true,
    furnished: false,
    expired: false,
    expiredAt: null,
    createdAt: '2026-02-01T10:00:00+00:00',
    updatedAt: '2026-02-20T10:00:00+00:00',
    lastCrawledAt: '2026-02-20T10:00:00+00:00',
    lastCrawledAdvert: '1a2b3c4d-0000-4000-8000-000000000001',
    locations: { lat: 45.7597, lon: 4.8553 },
    pictures: [],
    city: sampleCity(),
    stations: [],
  };
}
