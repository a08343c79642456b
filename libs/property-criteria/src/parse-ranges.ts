/**
 * Numeric `<key>Min`/`<key>Max` pairs and date `from…`/`to…` pairs. Bounds are inclusive; a lower
 * bound above its upper bound can match nothing, which is always a mistake of the caller, so it is
 * refused and both parameters are named.
 */
import { z } from 'zod';
import type { NumberRange, RangeKey, TimeRange, TimeRangeKey } from './criteria';
import { parseDateBound, type BoundSide } from './date-bounds';
import { TIME_RANGE_PARAMETERS, rangeParameterNames } from './endpoint-parameters';
import type { ParameterReader } from './parameter-reader';
import { integerValue, numberValue } from './query-values';

function dateBoundValue(side: BoundSide) {
  return z.unknown().transform((raw, context) => {
    const bound = parseDateBound(raw, side);
    if (bound.ok) return bound.value;
    context.addIssue({ code: 'custom', message: bound.message });
    return z.NEVER;
  });
}

const FROM_DATE = dateBoundValue('from');
const TO_DATE = dateBoundValue('to');

export function readRange(reader: ParameterReader, key: RangeKey): NumberRange {
  const names = rangeParameterNames(key);
  const schema = reader.parameters.integerRanges.has(key) ? integerValue : numberValue;
  const min = reader.scalar(names.min, schema);
  const max = reader.scalar(names.max, schema);
  if (min !== undefined && max !== undefined && min > max) failCrossedBounds(reader, names.min, names.max, String(min), String(max));
  return numberRange(min, max);
}

export function readTimeRange(reader: ParameterReader, key: TimeRangeKey): TimeRange {
  const names = TIME_RANGE_PARAMETERS[key];
  const from = reader.scalar(names.from, FROM_DATE);
  const to = reader.scalar(names.to, TO_DATE);
  if (from !== undefined && to !== undefined && from > to) {
    failCrossedBounds(reader, names.from, names.to, new Date(from).toISOString(), new Date(to).toISOString());
  }
  // A range never holds an undefined bound (see `numberRange`).
  if (from === undefined) return to === undefined ? {} : { to };
  return to === undefined ? { from } : { from, to };
}

/** `{ min, max }` with only the bounds given: a stored saved search would read an undefined one back as null. */
function numberRange(min: number | undefined, max: number | undefined): NumberRange {
  if (min === undefined) return max === undefined ? {} : { max };
  return max === undefined ? { min } : { min, max };
}

function failCrossedBounds(reader: ParameterReader, lowName: string, highName: string, low: string, high: string): void {
  reader.fail(lowName, `must not be greater than ${highName} (${low} > ${high})`);
  reader.fail(highName, `must not be less than ${lowName} (${high} < ${low})`);
}
