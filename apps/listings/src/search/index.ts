export { PropertySearchIndex, type IndexedProperty, type SearchResult } from './property-search-index';
export { SEARCH_ROW_VERSION, searchRowOf, type SearchAdvertRow, type SearchEventRow, type SearchPlace, type SearchRow } from './search-row';
