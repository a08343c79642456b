/**
 * The mingo operator context of the embedded store, built once per process. It is a private
 * context (not mingo's global registry) so that nothing else loading mingo can clash with it, and
 * so that our versions of a few operators take precedence over mingo's:
 * - `$geoWithin`, `$nearSphere`, `$near` query operators and a `$geoNear` stage (mingo has none);
 * - `$median` / `$percentile` (mingo 6.7.2 sorts inputs as strings, so 90000 > 100000, and does
 *   not follow MongoDB's rank rule);
 * - `$avg`, which must answer null rather than 0 when a group has no numeric value.
 */
import { Query } from 'mingo';
import {
  type AccumulatorOperator,
  type ExpressionOperator,
  type Options,
  type PipelineOperator,
  type QueryOperator,
  ComputeOptions,
  Context,
  ProcessingMode,
  computeValue,
} from 'mingo/core';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as projectionOperators from 'mingo/operators/projection';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import { isPlainObject, splitPath } from '../document-paths';
import { EARTH_RADIUS_METRES } from '../geo/geo-math';
import { GeoQueryError, compileGeoWithinAt, compileNear, nearestDistance, parseNear } from '../geo/geo-query';
import { type PercentileMethod, isPercentileMethod, percentileOfSorted, sortedNumbers } from './percentile';

const geoWithin: QueryOperator = (selector, value) => {
  const test = compileGeoWithinAt(selector, value);
  return (obj) => test(obj);
};

const nearSphere: QueryOperator = (selector, value) => compileNear('$nearSphere', selector, value);
const near: QueryOperator = (selector, value) => compileNear('$near', selector, value);

interface PercentileSpec {
  input: unknown;
  method: PercentileMethod;
}

function percentileSpec(expr: unknown, operator: string): PercentileSpec {
  if (!isPlainObject(expr) || !('input' in expr)) throw new Error(`${operator} expects { input, method }`);
  const method = expr['method'] ?? 'approximate';
  if (!isPercentileMethod(method)) throw new Error(`${operator} method must be 'approximate', 'discrete' or 'continuous'`);
  return { input: expr['input'], method };
}

function percentiles(expr: unknown): number[] {
  const p = isPlainObject(expr) ? expr['p'] : undefined;
  if (!Array.isArray(p) || p.length === 0 || !p.every((v) => typeof v === 'number' && v >= 0 && v <= 1)) {
    throw new Error('$percentile p must be a non-empty array of numbers between 0 and 1');
  }
  return p as number[];
}

/** Evaluates an expression against every member of a group, as mingo's own `$push` does. */
function groupValues(collection: unknown[], input: unknown, options: Options): unknown[] {
  const copts = ComputeOptions.init(options);
  return collection.map((doc) => computeValue(doc, input, null, copts.update(doc)));
}

const medianAccumulator: AccumulatorOperator = (collection, expr, options) => {
  const spec = percentileSpec(expr, '$median');
  return percentileOfSorted(sortedNumbers(groupValues(collection, spec.input, options)), 0.5, spec.method);
};

const percentileAccumulator: AccumulatorOperator = (collection, expr, options) => {
  const spec = percentileSpec(expr, '$percentile');
  const sorted = sortedNumbers(groupValues(collection, spec.input, options));
  return percentiles(expr).map((p) => percentileOfSorted(sorted, p, spec.method));
};

const avgAccumulator: AccumulatorOperator = (collection, expr, options) => {
  let sum = 0;
  let count = 0;
  for (const value of groupValues(collection, expr, options)) {
    if (typeof value === 'number' && !Number.isNaN(value)) {
      sum += value;
      count++;
    }
  }
  return count === 0 ? null : sum / count;
};

function expressionInput(obj: unknown, input: unknown, options: Options): unknown[] {
  const value = computeValue(obj, input, null, options);
  return Array.isArray(value) ? value : [value];
}

const medianExpression: ExpressionOperator = (obj, expr, options) => {
  const spec = percentileSpec(expr, '$median');
  return percentileOfSorted(sortedNumbers(expressionInput(obj, spec.input, options)), 0.5, spec.method);
};

const percentileExpression: ExpressionOperator = (obj, expr, options) => {
  const spec = percentileSpec(expr, '$percentile');
  const sorted = sortedNumbers(expressionInput(obj, spec.input, options));
  return percentiles(expr).map((p) => percentileOfSorted(sorted, p, spec.method));
};

interface GeoNearStage {
  key: string;
  distanceField: string;
  legacy: boolean;
  center: readonly [number, number];
  minDistance: number;
  maxDistance: number;
  query: Record<string, unknown> | null;
  distanceMultiplier: number;
}

function parseGeoNearStage(expr: unknown): GeoNearStage {
  if (!isPlainObject(expr)) throw new GeoQueryError('$geoNear expects a document');
  const { key, distanceField, near: nearValue, query } = expr;
  if (typeof key !== 'string' || key === '') throw new GeoQueryError('$geoNear needs `key` (the geo field)');
  if (typeof distanceField !== 'string' || distanceField === '') throw new GeoQueryError('$geoNear needs `distanceField`');
  const legacy = !(isPlainObject(nearValue) && nearValue['type'] === 'Point');
  const distances = { $minDistance: expr['minDistance'], $maxDistance: expr['maxDistance'] };
  // The GeoJSON form measures in metres and the legacy pair form in radians, as in MongoDB.
  const spec = legacy
    ? parseNear('$nearSphere', nearValue, distances)
    : parseNear('$nearSphere', { $geometry: nearValue, ...distances });
  const multiplier = expr['distanceMultiplier'] ?? 1;
  if (typeof multiplier !== 'number') throw new GeoQueryError('$geoNear distanceMultiplier must be a number');
  if (query !== undefined && !isPlainObject(query)) throw new GeoQueryError('$geoNear query must be a document');
  return { key, distanceField, legacy, ...spec, query: query ?? null, distanceMultiplier: multiplier };
}

/** Copy of `doc` with `value` at a dotted path; objects on the path are copied, never mutated. */
function withPathValue(doc: Record<string, unknown>, parts: readonly string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = parts;
  if (head === undefined) return doc;
  const copy = { ...doc };
  if (rest.length === 0) copy[head] = value;
  else {
    const child = copy[head];
    copy[head] = withPathValue(isPlainObject(child) ? child : {}, rest, value);
  }
  return copy;
}

const geoNearStage: PipelineOperator = (collection, expr, options) => {
  const stage = parseGeoNearStage(expr);
  const keyParts = splitPath(stage.key);
  const distanceParts = splitPath(stage.distanceField);
  const query = stage.query ? new Query(stage.query, options) : null;
  return collection.transform((docs) => {
    const rows: { doc: Record<string, unknown>; distance: number }[] = [];
    for (const doc of docs) {
      if (!isPlainObject(doc) || (query && !query.test(doc))) continue;
      const distance = nearestDistance(doc, keyParts, stage.center);
      if (distance === null || distance < stage.minDistance || distance > stage.maxDistance) continue;
      rows.push({ doc, distance });
    }
    rows.sort((a, b) => a.distance - b.distance);
    const unit = stage.legacy ? 1 / EARTH_RADIUS_METRES : 1;
    return rows.map(({ doc, distance }) =>
      withPathValue(doc, distanceParts, distance * unit * stage.distanceMultiplier),
    );
  });
};

const CONTEXT = Context.init({
  accumulator: {
    ...accumulatorOperators,
    $median: medianAccumulator,
    $percentile: percentileAccumulator,
    $avg: avgAccumulator,
  },
  expression: { ...expressionOperators, $median: medianExpression, $percentile: percentileExpression },
  pipeline: { ...pipelineOperators, $geoNear: geoNearStage },
  projection: { ...projectionOperators },
  query: { ...queryOperators, $geoWithin: geoWithin, $nearSphere: nearSphere, $near: near },
  window: { ...windowOperators },
});

/**
 * Options for every mingo call of the embedded store. Inputs are not cloned by mingo: the store
 * hands it stored documents read-only and clones what it returns.
 */
export const MINGO_OPTIONS: Partial<Options> = Object.freeze({
  context: CONTEXT,
  useGlobalContext: false,
  useStrictMode: true,
  // Filters are data, not code: `$where` / `$function` would run arbitrary JavaScript.
  scriptEnabled: false,
  processingMode: ProcessingMode.CLONE_OFF,
  idKey: '_id',
});
