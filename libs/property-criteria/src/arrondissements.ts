/**
 * Paris, Marseille and Lyon are communes divided into municipal arrondissements, each with its own
 * INSEE code. A search for the commune means all of its arrondissements, and listings are placed in
 * an arrondissement whenever the address allows it, so place filters must see through the split.
 *
 * Documents say it themselves through `city.cityParentId`; this table is the fallback for a city
 * built without it. The geo service's city id is the INSEE code read as a number (apps/geo
 * reference-data.ts), so the ranges below serve as INSEE codes and as city ids alike.
 */

interface ArrondissementRange {
  commune: number;
  first: number;
  last: number;
}

export const MUNICIPAL_ARRONDISSEMENTS: readonly ArrondissementRange[] = [
  /** Paris: 1er to 20e. */
  { commune: 75056, first: 75101, last: 75120 },
  /** Marseille: 1er to 16e. */
  { commune: 13055, first: 13201, last: 13216 },
  /** Lyon: 1er to 9e. */
  { commune: 69123, first: 69381, last: 69389 },
];

/** The commune an arrondissement belongs to (by INSEE code as a number, or city id); null otherwise. */
export function communeOfArrondissement(code: number): number | null {
  const range = MUNICIPAL_ARRONDISSEMENTS.find((candidate) => code >= candidate.first && code <= candidate.last);
  return range?.commune ?? null;
}
