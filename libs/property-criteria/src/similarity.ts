/**
 * What "similar" means, documented for API clients (OpenAPI description of the endpoint):
 * same transaction type and property type; in the same commune or within `radiusKm` of the
 * property; price within ±`priceTolerance` of its price; surface within ±`surfaceTolerance` when
 * both are known; rooms within ±`roomTolerance` when both are known; never the property itself.
 */
export const SIMILARITY = {
  radiusKm: 10,
  priceTolerance: 0.3,
  surfaceTolerance: 0.3,
  roomTolerance: 1,
  /** Weight of one room of difference in the score (a relative price gap of 25 % weighs as much). */
  roomWeight: 0.25,
} as const;
