import { stringifyQuery, type ParsedQuery } from './query-string';

export interface HydraMapping {
  variable: string;
  property: string | null;
  required: boolean;
}

export interface HydraCollectionInput<T> {
  /** JSON-LD context of the members, e.g. `/contexts/PropertyDocument`. */
  context: string;
  /** Request path without query, e.g. `/documents/properties`. */
  path: string;
  query: ParsedQuery;
  members: T[];
  totalItems: number;
  page: number;
  itemsPerPage: number;
  /** Search variables the endpoint accepts, for `hydra:search`. */
  mappings: HydraMapping[];
}

export interface HydraCollection<T> {
  '@context': string;
  '@id': string;
  '@type': 'hydra:Collection';
  'hydra:member': T[];
  'hydra:totalItems': number;
  'hydra:view': Record<string, string>;
  'hydra:search': {
    '@type': 'hydra:IriTemplate';
    'hydra:template': string;
    'hydra:variableRepresentation': 'BasicRepresentation';
    'hydra:mapping': { '@type': 'IriTemplateMapping'; variable: string; property: string | null; required: boolean }[];
  };
}

function linkTo(path: string, query: ParsedQuery, page: number): string {
  const search = stringifyQuery({ ...query, page: String(page) });
  return `${path}?${search}`;
}

/** The Hydra envelope every collection endpoint answers with (API Platform's layout). */
export function hydraCollection<T>(input: HydraCollectionInput<T>): HydraCollection<T> {
  return {
    '@context': input.context,
    '@id': input.path,
    '@type': 'hydra:Collection',
    'hydra:member': input.members,
    'hydra:totalItems': input.totalItems,
    'hydra:view': hydraView(input),
    'hydra:search': hydraSearch(input),
  };
}

/** The endpoints' mappings are constants: their variable list and `hydra:mapping` are encoded once. */
const encodedMappings = new WeakMap<HydraMapping[], { variables: string; mappingJson: string }>();

/**
 * The same envelope as UTF-8 JSON, around members that already are JSON (a page of documents as
 * listings sent it): the members are never decoded or parsed, and the constant parts are encoded once.
 */
export function hydraCollectionBytes(input: Omit<HydraCollectionInput<never>, 'members'> & { membersJson: Uint8Array }): Buffer {
  let encoded = encodedMappings.get(input.mappings);
  if (encoded === undefined) {
    const search = hydraSearch(input);
    encoded = { variables: variablesOf(input.mappings), mappingJson: JSON.stringify(search['hydra:mapping']) };
    encodedMappings.set(input.mappings, encoded);
  }
  const template = JSON.stringify(`${input.path}{?${encoded.variables}}`);
  // Keys in hydraCollection's order.
  const before = `{"@context":${JSON.stringify(input.context)},"@id":${JSON.stringify(input.path)},"@type":"hydra:Collection","hydra:member":`;
  const after =
    `,"hydra:totalItems":${input.totalItems},"hydra:view":${JSON.stringify(hydraView(input))},` +
    `"hydra:search":{"@type":"hydra:IriTemplate","hydra:template":${template},"hydra:variableRepresentation":"BasicRepresentation","hydra:mapping":${encoded.mappingJson}}}`;
  return Buffer.concat([Buffer.from(before), input.membersJson, Buffer.from(after)]);
}

const variablesOf = (mappings: HydraMapping[]): string => mappings.map((m) => m.variable).join(',');

function hydraView(input: Omit<HydraCollectionInput<unknown>, 'members'>): Record<string, string> {
  // itemsPerPage=0 asks for the count alone: one (empty) page.
  const lastPage = input.itemsPerPage > 0 ? Math.max(1, Math.ceil(input.totalItems / input.itemsPerPage)) : 1;
  const current = linkTo(input.path, input.query, input.page);
  const view: Record<string, string> = {
    '@id': current,
    '@type': 'hydra:PartialCollectionView',
    'hydra:first': linkTo(input.path, input.query, 1),
    'hydra:last': linkTo(input.path, input.query, lastPage),
  };
  if (input.page > 1) view['hydra:previous'] = linkTo(input.path, input.query, Math.min(input.page - 1, lastPage));
  if (input.page < lastPage) view['hydra:next'] = linkTo(input.path, input.query, input.page + 1);
  return view;
}

function hydraSearch(input: Pick<HydraCollectionInput<unknown>, 'path' | 'mappings'>): HydraCollection<unknown>['hydra:search'] {
  return {
    '@type': 'hydra:IriTemplate',
    'hydra:template': `${input.path}{?${variablesOf(input.mappings)}}`,
    'hydra:variableRepresentation': 'BasicRepresentation',
    'hydra:mapping': input.mappings.map((m) => ({ '@type': 'IriTemplateMapping', ...m })),
  };
}
