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

/**
 * The links of one query to any of its pages: the query is serialised once, around where `page`
 * goes (its own place when the query had one, the end otherwise), the same text as serialising
 * `{ ...query, page }` for each link.
 */
function pageLinks(path: string, query: ParsedQuery): (page: number) => string {
  const keys = Object.keys(query);
  const at = keys.indexOf('page');
  const part = (from: number, to: number) => stringifyQuery(Object.fromEntries(keys.slice(from, to).map((key) => [key, query[key]])));
  const before = part(0, at === -1 ? keys.length : at);
  const after = at === -1 ? '' : part(at + 1, keys.length);
  const head = `${path}?${before}${before ? '&' : ''}page=`;
  const tail = after ? `&${after}` : '';
  return (page) => `${head}${page}${tail}`;
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

/**
 * The end of the envelope after the template's path, as bytes: it depends only on the endpoint's
 * mappings (constants), and at ~90 variables it is ~11 KB, too much to encode again per answer.
 */
const encodedSearchTails = new WeakMap<HydraMapping[], Buffer>();

function searchTailOf(mappings: HydraMapping[]): Buffer {
  let tail = encodedSearchTails.get(mappings);
  if (tail === undefined) {
    const variables = `{?${variablesOf(mappings)}}`;
    // The template is the path's JSON string with this appended, unescaped: variable names need no escaping.
    if (JSON.stringify(variables) !== `"${variables}"`) throw new Error(`a search variable needs escaping in JSON: ${variables}`);
    const mapping = JSON.stringify(mappings.map((m) => ({ '@type': 'IriTemplateMapping', ...m })));
    tail = Buffer.from(`${variables}","hydra:variableRepresentation":"BasicRepresentation","hydra:mapping":${mapping}}}`);
    encodedSearchTails.set(mappings, tail);
  }
  return tail;
}

/**
 * The same envelope as UTF-8 JSON, around members that already are JSON (a page of documents as
 * listings sent it): the members are never decoded or parsed, and the constant parts are encoded once.
 */
export function hydraCollectionBytes(input: Omit<HydraCollectionInput<never>, 'members'> & { membersJson: Uint8Array }): Buffer {
  const path = JSON.stringify(input.path);
  // Keys in hydraCollection's order.
  const before = `{"@context":${JSON.stringify(input.context)},"@id":${path},"@type":"hydra:Collection","hydra:member":`;
  const middle =
    `,"hydra:totalItems":${input.totalItems},"hydra:view":${JSON.stringify(hydraView(input))},` +
    `"hydra:search":{"@type":"hydra:IriTemplate","hydra:template":${path.slice(0, -1)}`;
  return Buffer.concat([Buffer.from(before), input.membersJson, Buffer.from(middle), searchTailOf(input.mappings)]);
}

const variablesOf = (mappings: HydraMapping[]): string => mappings.map((m) => m.variable).join(',');

function hydraView(input: Omit<HydraCollectionInput<unknown>, 'members'>): Record<string, string> {
  // itemsPerPage=0 asks for the count alone: one (empty) page.
  const lastPage = input.itemsPerPage > 0 ? Math.max(1, Math.ceil(input.totalItems / input.itemsPerPage)) : 1;
  const linkTo = pageLinks(input.path, input.query);
  const view: Record<string, string> = {
    '@id': linkTo(input.page),
    '@type': 'hydra:PartialCollectionView',
    'hydra:first': linkTo(1),
    'hydra:last': linkTo(lastPage),
  };
  if (input.page > 1) view['hydra:previous'] = linkTo(Math.min(input.page - 1, lastPage));
  if (input.page < lastPage) view['hydra:next'] = linkTo(input.page + 1);
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
