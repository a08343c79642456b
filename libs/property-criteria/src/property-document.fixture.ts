/**
 * Test data builders typed against the real PropertyDocument contract: a 3-room flat for sale in
 * Lyon 3e with one advert, which every spec adjusts to the case at hand.
 */
import {
  sampleAdvert,
  sampleCity,
  samplePropertyDocument,
  SAMPLE_PROPERTY_UUID,
  type Advert,
  type AdvertEvent,
  type City,
  type PropertyDocument,
} from '@immo/contracts';
import type { PropertyCriteria } from './criteria';
import { parsePropertyCriteria } from './parse-criteria';

export const PROPERTY_UUID = SAMPLE_PROPERTY_UUID;

export function aCity(overrides: Partial<City> = {}): City {
  return { ...sampleCity(), ...overrides };
}

export function anEvent(overrides: Partial<AdvertEvent> = {}): AdvertEvent {
  return {
    fieldName: 'price',
    fieldOldValue: '300000',
    fieldNewValue: '289000',
    percentVariation: -3.67,
    createdAt: '2026-02-15T09:00:00+00:00',
    ...overrides,
  };
}

export function anAdvert(overrides: Partial<Advert> = {}): Advert {
  return { ...sampleAdvert(), ...overrides };
}

export function aPropertyDocument(overrides: Partial<PropertyDocument> = {}): PropertyDocument {
  return { ...samplePropertyDocument(overrides.uuid ?? PROPERTY_UUID), adverts: [anAdvert()], city: aCity(), ...overrides };
}

/** Criteria from a query, failing the test on any violation. */
export function criteriaOf(query: Record<string, unknown>): PropertyCriteria {
  const result = parsePropertyCriteria(query);
  if (!result.ok) throw new Error(`Unexpected violations: ${JSON.stringify(result.violations)}`);
  return result.criteria;
}
