/** Geo domain: reference data, city directory, autocomplete, points of interest and stations. */
export * from './autocomplete';
export * from './city-directory';
export * from './city-model';
export * from './domain-errors';
export * from './geo-math';
export * from './points-of-interest';
export * from './reference-data';
export * from './stations';
export * from './text-normalise';
