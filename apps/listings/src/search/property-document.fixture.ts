/** The criteria library's document builders, plus numbered uuids for the search index specs. */
export * from '@immo/property-criteria/testing';

export const uuidOf = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
