// Runtime building blocks with no domain and no framework in them: the apps' and stores' code runs
// on these (maps, interning, ids, yielding, serial work loops); the language the apps speak to each
// other lives in @immo/contracts.
export * from './plain-object';
export * from './name-based-uuid';
export * from './intern-string';
export * from './sharded-map';
export * from './seeded-random';
export * from './yield-to-event-loop';
export * from './serial-loop';
