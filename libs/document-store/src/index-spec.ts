import type { IndexSpec } from './document-store.port';

/** MongoDB's default index name (`city.insee_1_price_-1`), so both adapters report the same. */
export function indexName(spec: IndexSpec): string {
  return Object.entries(spec.fields)
    .map(([field, direction]) => `${field}_${String(direction)}`)
    .join('_');
}

export function indexFields(spec: IndexSpec): [string, 1 | -1 | '2dsphere'][] {
  const fields = Object.entries(spec.fields);
  if (fields.length === 0) throw new Error(`Index "${spec.serves}" declares no field`);
  return fields;
}
