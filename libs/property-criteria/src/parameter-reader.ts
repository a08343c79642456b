/**
 * Reads the parameters of one endpoint from a bracket-parsed query and collects one violation per
 * bad parameter, named as the caller wrote it. A parameter the endpoint does not read is never
 * looked at: it reads as absent here and is reported as ignored by the caller.
 */
import type { Violation } from '@immo/contracts';
import type { z } from 'zod';
import type { EndpointParameters } from './endpoint-parameters';
import { listItems } from './list-items';
import { isBlank, isScalar, readValue } from './query-values';

export class ParameterReader {
  readonly violations: Violation[] = [];

  constructor(
    private readonly query: Readonly<Record<string, unknown>>,
    readonly parameters: EndpointParameters,
  ) {}

  /** The raw value, or undefined when absent, empty or not read on this endpoint. */
  raw(name: string): unknown {
    if (!this.parameters.names.has(name) || !Object.hasOwn(this.query, name)) return undefined;
    const value = this.query[name];
    return isBlank(value) ? undefined : value;
  }

  fail(propertyPath: string, message: string): void {
    this.violations.push({ propertyPath, message });
  }

  /** A single value; a repeated parameter (`a=1&a=2`) or a bracketed one is a violation. */
  scalar<T>(name: string, schema: z.ZodType<T>): T | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    if (!isScalar(raw)) {
      this.fail(name, 'must be a single value');
      return undefined;
    }
    const value = readValue(schema, raw);
    if (value.ok) return value.value;
    this.fail(name, value.message);
    return undefined;
  }

  /** A list; a single value counts as a one-item list. Duplicates are dropped, order is kept. */
  list<T>(name: string, itemSchema: z.ZodType<T>): T[] {
    const items = listItems(this.raw(name), name);
    if (!items.ok) {
      this.fail(name, items.message);
      return [];
    }
    const values: T[] = [];
    for (const item of items.value) {
      if (!isScalar(item.value)) {
        this.fail(item.path, 'must be a single value');
        continue;
      }
      const value = readValue(itemSchema, item.value);
      if (!value.ok) this.fail(item.path, value.message);
      else if (!values.includes(value.value)) values.push(value.value);
    }
    return values;
  }
}
