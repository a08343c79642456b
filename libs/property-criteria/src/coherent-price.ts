/**
 * `withCoherentPrice` (default true) drops properties whose price per m² no real French market
 * produces: a rent typed into a sale advert, a sale price in thousands of euros, a surface typed in
 * the price field, a land surface given as the living surface… A property without a price per m²
 * (no surface) is kept: nothing says its price is wrong.
 *
 * How the bands were chosen: they bracket the orders of magnitude of the public French market
 * figures (notaries' and DVF sale prices per m², from a few hundred euros in the cheapest rural
 * communes to about 20,000–25,000 €/m² for the dearest Paris flats; observatory rents from about
 * 5 €/m²/month in rural areas to about 40 €/m²/month for small Paris flats), then are widened by
 * a generous margin on both sides. They are meant to catch data errors, which are off by a factor
 * of ten or more, never to judge a genuine bargain or a luxury listing. Revisit them against the
 * distribution of the stored listings once enough are loaded.
 */
import type { PropertyType, TransactionType } from './criteria';

/** Inclusive band in €/m² (sale) or €/m²/month (rent). */
export interface PricePerMeterBand {
  min: number;
  max: number;
}

export const COHERENT_PRICE_PER_METER: Readonly<Record<TransactionType, Readonly<Record<PropertyType, PricePerMeterBand>>>> = {
  // Sale, €/m².
  0: {
    /** Flats: from small-town studios needing work to prime Paris. */
    0: { min: 500, max: 30_000 },
    /** Houses: rural houses to renovate sell for a few hundred €/m²; villas on the Riviera top out lower than Paris flats. */
    1: { min: 300, max: 30_000 },
    /** Whole buildings, usually bought below the unit price of their flats. */
    2: { min: 200, max: 25_000 },
    /** Parking spaces (about 12 m²): from a few thousand euros to over 100,000 € in central Paris. */
    3: { min: 100, max: 15_000 },
    /** Offices: from business-park premises to Paris central business district. */
    4: { min: 200, max: 30_000 },
    /** Land: agricultural land sells for well under 1 €/m²; building plots near Paris or on the coast for a few thousand. */
    5: { min: 0.2, max: 5_000 },
    /** Shops: walls of small-town shops to prime high-street retail, which exceeds residential prices. */
    6: { min: 200, max: 50_000 },
  },
  // Rent, €/m²/month.
  1: {
    /** Flats: from rural rents to small furnished Paris studios. */
    0: { min: 3, max: 100 },
    /** Houses: larger surfaces lower the price per m². */
    1: { min: 2, max: 80 },
    /** Whole buildings. */
    2: { min: 1, max: 80 },
    /** Parking spaces: a 12 m² space rents for about 30 € to 300 € a month. */
    3: { min: 0.5, max: 60 },
    /** Offices: prime Paris rents are near 1,000 €/m² a year, that is about 80 € a month. */
    4: { min: 1, max: 150 },
    /** Land: gardens, storage yards and fields, rented for very little per m². */
    5: { min: 0.01, max: 30 },
    /** Shops: the best Paris high streets reach about 20,000 €/m² a year. */
    6: { min: 1, max: 2_000 },
  },
};

/** The band for a transaction and property type, or undefined for a type outside the spec's enums. */
export function coherentPricePerMeterBand(transactionType: number, propertyType: number): PricePerMeterBand | undefined {
  const byPropertyType = COHERENT_PRICE_PER_METER[transactionType as TransactionType] as Record<number, PricePerMeterBand> | undefined;
  return byPropertyType?.[propertyType];
}

/**
 * True when the price per m² lies inside its band, or cannot be judged: no price per m², or a
 * transaction or property type outside the spec's enums.
 */
export function hasCoherentPrice(doc: { transactionType: number; propertyType: number; pricePerMeter: number | null }): boolean {
  if (doc.pricePerMeter === null) return true;
  const band = coherentPricePerMeterBand(doc.transactionType, doc.propertyType);
  if (band === undefined) return true;
  return doc.pricePerMeter >= band.min && doc.pricePerMeter <= band.max;
}
