/**
 * Size limits and paging figures of the property criteria.
 *
 * The size limits are checked before any value is read, so an absurd query costs a count and
 * nothing more. They match the gateway's query-string array limit (1,000 items) and are far above
 * what a person or a map widget produces: a hand-drawn area has tens of points, a saved search a
 * handful of words.
 */

/** Most points over all `geoShapes` rings together; every point costs a test per property. */
export const MAX_SHAPE_POINTS = 1_000;

/** Most `expressions` words over all groups together; every word costs a scan of the texts. */
export const MAX_EXPRESSION_WORDS = 100;

/** Most items in any list parameter (`propertyTypes`, `includedCities`, a shape's points…). */
export const MAX_ARRAY_ITEMS = 1_000;

/** Longest expression word, in characters: longer input is a pasted text, not a search word. */
export const MAX_EXPRESSION_WORD_LENGTH = 100;

/** Largest page size of every collection (spec, Limits); larger requests are capped, not refused. */
export const MAX_ITEMS_PER_PAGE = 30;

/** Page size when the caller gives none, per endpoint (spec, Limits). */
export const DEFAULT_ITEMS_PER_PAGE = {
  properties: 10,
  /** The spec gives no default for similar properties; the properties collection's is used. */
  similar: 10,
  price_per_meter: 30,
} as const;
