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
  return {
    '@context': input.context,
    '@id': input.path,
    '@type': 'hydra:Collection',
    'hydra:member': input.members,
    'hydra:totalItems': input.totalItems,
    'hydra:view': view,
    'hydra:search': {
      '@type': 'hydra:IriTemplate',
      'hydra:template': `${input.path}{?${input.mappings.map((m) => m.variable).join(',')}}`,
      'hydra:variableRepresentation': 'BasicRepresentation',
      'hydra:mapping': input.mappings.map((m) => ({ '@type': 'IriTemplateMapping', ...m })),
    },
  };
}
