/** Test data builders for the criteria and for code built on them (`@immo/property-criteria/testing`). */
export * from './property-document.fixture';
