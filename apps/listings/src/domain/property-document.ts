/**
 * Builds the PropertyDocument read model of one property from its adverts' states.
 *
 * Pure: city and stations are looked up by the caller (geo service) and passed in, so a
 * projection rebuild gives the same document for the same inputs.
 *
 * Choices:
 * - Top-level descriptive fields (title, description, types, price, surfaces, rooms, floor,
 *   elevator, furnished) come from one "lead" advert: the most recently crawled advert that is
 *   not expired, or the most recently crawled one when all are expired (ties: latest update,
 *   then smallest uuid). It reflects what the market currently shows; mixing fields from several
 *   adverts would produce a price that no publisher asks.
 * - `pricePerMeter` = lead price / lead surface, 2 decimals; null without a surface.
 * - `publisherTypes`: distinct types over all adverts, ascending.
 * - `expired`: every advert expired; `expiredAt`: the latest advert expiry then, else null.
 * - `createdAt`: earliest advert creation; `updatedAt`: latest advert update; `lastCrawledAt`
 *   and `lastCrawledAdvert`: the most recently crawled advert.
 * - `locations`: the lead advert's coordinates, else those of the most recently crawled advert
 *   that has some, else null (no fallback to the city centre: `withLocation` and radius filters
 *   must not treat a city centroid as the property's position).
 * - `pictures`: hosted pictures of the lead advert first, then of the other adverts from the most
 *   recently crawled, de-duplicated; publisher-side addresses only if no advert has hosted copies.
 * - `adverts`: ordered by creation (then uuid), so documents are stable across rebuilds.
 */
import {
  PROPERTY_DOCUMENT_CONTEXT,
  PROPERTY_DOCUMENT_TYPE,
  type Advert,
  type City,
  type PropertyDocument,
  type Station,
} from '@immo/contracts';
import type { AdvertState } from './advert.events';
import { round2 } from './timestamps';

export interface PropertyDocumentInput {
  propertyId: string;
  /** States of the property's adverts (those assigned to `propertyId`), in any order. */
  adverts: readonly AdvertState[];
  city: City | null;
  stations: readonly Station[];
}

export function propertyDocumentIri(propertyId: string): string {
  return `/documents/properties/${propertyId}`;
}

export function propertyIri(propertyId: string): string {
  return `/properties/${propertyId}`;
}

export function buildPropertyDocument(input: PropertyDocumentInput): PropertyDocument {
  const { propertyId, adverts, city, stations } = input;
  const lead = leadAdvertOf(adverts);
  if (lead === undefined) throw new Error(`Property ${propertyId} has no advert`);

  const byRecentCrawl = [...adverts].sort(compareRecentCrawlFirst);
  const lastCrawled = byRecentCrawl[0] ?? lead;
  let createdAt = lead.createdAt;
  let updatedAt = lead.updatedAt;
  let expired = true;
  let expiredAt: string | null = null;
  const publisherTypes = new Set<number>();
  for (const a of adverts) {
    if (a.createdAt < createdAt) createdAt = a.createdAt;
    if (a.updatedAt > updatedAt) updatedAt = a.updatedAt;
    if (!a.expired) expired = false;
    if (a.expiredAt !== null && (expiredAt === null || a.expiredAt > expiredAt)) expiredAt = a.expiredAt;
    publisherTypes.add(a.publisher.type);
  }

  const byCreation = [...adverts].sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0,
  );

  return {
    '@context': PROPERTY_DOCUMENT_CONTEXT,
    '@id': propertyDocumentIri(propertyId),
    '@type': PROPERTY_DOCUMENT_TYPE,
    uuid: propertyId,
    property: propertyIri(propertyId),
    adverts: byCreation.map(toAdvertDocument),
    title: lead.title,
    description: lead.description,
    propertyType: lead.propertyType,
    transactionType: lead.transactionType,
    publisherTypes: [...publisherTypes].sort((a, b) => a - b),
    price: lead.price,
    pricePerMeter: lead.surface !== null && lead.surface > 0 ? round2(lead.price / lead.surface) : null,
    surface: lead.surface,
    landSurface: lead.landSurface,
    room: lead.room,
    bedroom: lead.bedroom,
    floor: lead.floor,
    elevator: lead.elevator,
    furnished: lead.furnished,
    expired,
    expiredAt: expired ? expiredAt : null,
    createdAt,
    updatedAt,
    lastCrawledAt: lastCrawled.lastCrawledAt,
    lastCrawledAdvert: lastCrawled.uuid,
    locations: locationOf(lead, byRecentCrawl),
    pictures: picturesOf(lead, byRecentCrawl),
    city,
    stations: stations.slice(),
  };
}

/** The advert whose fields represent the property (see module doc). */
export function leadAdvertOf(adverts: readonly AdvertState[]): AdvertState | undefined {
  let lead: AdvertState | undefined;
  for (const a of adverts) {
    if (lead === undefined) lead = a;
    else if (a.expired !== lead.expired) {
      if (!a.expired) lead = a;
    } else if (compareRecentCrawlFirst(a, lead) < 0) lead = a;
  }
  return lead;
}

function compareRecentCrawlFirst(a: AdvertState, b: AdvertState): number {
  if (a.lastCrawledAt !== b.lastCrawledAt) return a.lastCrawledAt > b.lastCrawledAt ? -1 : 1;
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt ? -1 : 1;
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}

function locationOf(lead: AdvertState, byRecentCrawl: readonly AdvertState[]): PropertyDocument['locations'] {
  const source = lead.location !== null ? lead : byRecentCrawl.find((a) => a.location !== null);
  return source?.location ? { lat: source.location.lat, lon: source.location.lon } : null;
}

function picturesOf(lead: AdvertState, byRecentCrawl: readonly AdvertState[]): string[] {
  const hosted = new Set<string>(lead.pictures);
  for (const a of byRecentCrawl) for (const p of a.pictures) hosted.add(p);
  if (hosted.size > 0) return [...hosted];
  const remote = new Set<string>(lead.picturesRemote);
  for (const a of byRecentCrawl) for (const p of a.picturesRemote) remote.add(p);
  return [...remote];
}

export function toAdvertDocument(a: AdvertState): Advert {
  return {
    uuid: a.uuid,
    url: a.url,
    title: a.title,
    description: a.description,
    price: a.price,
    priceExcludingFees: a.priceExcludingFees,
    feesPercentage: a.feesPercentage,
    feesResponsibility: a.feesResponsibility,
    condominiumFees: a.condominiumFees,
    rentalCharges: a.rentalCharges,
    rentalPledge: a.rentalPledge,
    renterFees: a.renterFees,
    inventoryPrice: a.inventoryPrice,
    surface: a.surface,
    landSurface: a.landSurface,
    room: a.room,
    bedroom: a.bedroom,
    floor: a.floor,
    floorQuantity: a.floorQuantity,
    lotCount: a.lotCount,
    constructionYear: a.constructionYear,
    elevator: a.elevator,
    furnished: a.furnished,
    energy: a.energy ? { category: a.energy.category, value: a.energy.value } : null,
    greenHouseGas: a.greenHouseGas ? { category: a.greenHouseGas.category, value: a.greenHouseGas.value } : null,
    features: a.features.slice(),
    pictures: a.pictures.slice(),
    picturesRemote: a.picturesRemote.slice(),
    virtualTour: a.virtualTour,
    contact: a.contact ? { ...a.contact } : null,
    publisher: { category: a.publisher.category, name: a.publisher.name, type: a.publisher.type },
    events: a.events.map((e) => ({ ...e })),
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
    lastCrawledAt: a.lastCrawledAt,
    site: a.site,
    siteCategory: a.siteCategory,
    expired: a.expired,
    expiredAt: a.expiredAt,
    geoAccuracy: a.location?.accuracy ?? null,
  };
}
