/**
 * The criteria query a saved search runs (`GET /searches/{id}/properties`, the alert matcher):
 * the criteria it was given, with the original service's `includedZipcodesInsee` read as the
 * commune INSEE codes it holds, i.e. as `includedInseeCodes` (a union, like every included place).
 */

/** The parts of a `SearchSpec` (search-body.ts) that select properties. */
export interface SelectingFields {
  criteria: Record<string, unknown>;
  includedZipcodesInsee?: readonly string[];
}

export function criteriaQueryOf(spec: SelectingFields): Record<string, unknown> {
  const codes = spec.includedZipcodesInsee ?? [];
  if (codes.length === 0) return spec.criteria;
  const given = spec.criteria['includedInseeCodes'];
  const listed = Array.isArray(given) ? given : given === undefined || given === null ? [] : [given];
  return { ...spec.criteria, includedInseeCodes: [...new Set([...listed.map(String), ...codes])] };
}
