/** Test data builders for the listings domain specs. */
import type { AdvertSnapshot } from '@immo/contracts';

/** A 3-room flat for sale in Lyon 3e, as seen by `synthetic-portal-a` on 2026-03-01. */
export function aSnapshot(overrides: Partial<AdvertSnapshot> = {}): AdvertSnapshot {
  return {
    site: 'synthetic-portal-a',
    siteCategory: 'portal',
    url: 'https://synthetic-portal-a.example/annonces/SPA-1',
    reference: 'SPA-1',
    publisher: { name: 'Agence Exemple (synthetic)', category: 'agency', type: 1 },
    title: 'Appartement 3 pièces 64 m²',
    description: 'Annonce synthétique.',
    price: 289_000,
    priceExcludingFees: 275_000,
    feesPercentage: 5.09,
    feesResponsibility: 1,
    condominiumFees: 1800,
    surface: 64,
    room: 3,
    bedroom: 2,
    floor: 4,
    floorQuantity: 6,
    elevator: true,
    furnished: false,
    energy: { category: 'D', value: 212 },
    greenHouseGas: { category: 'E', value: 52 },
    features: ['balcon'],
    pictures: ['https://img.synthetic-portal-a.example/SPA-1/1.jpg'],
    picturesRemote: ['https://cdn.agence-exemple.example/1.jpg'],
    contact: { agency: 'Agence Exemple (synthetic)', phone: '01 99 00 12 34' },
    propertyType: 0,
    transactionType: 0,
    location: { lat: 45.7597, lon: 4.8553 },
    commune: { insee: '69123', zipcode: '69003', name: 'Lyon' },
    seenAt: '2026-03-01T10:00:00Z',
    ...overrides,
  };
}
