import type { JsonSchema } from './json-schema';

const REF_PREFIX = '#/components/schemas/';
/** Plain-JSON variants of components are named as API Platform names its format variants: `Search.json`. */
const VARIANT_SUFFIX = '.json';
const COLLECTION_REF = `${REF_PREFIX}HydraCollection`;

const isJsonLdKey = (key: string) => key.startsWith('@');
const ALTERNATIVES = new Set(['anyOf', 'oneOf']);
/** What an alternative that held only JSON-LD keywords stands for in plain JSON: some object. */
const ANY_OBJECT = { type: 'object', additionalProperties: true };
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const refName = (value: Record<string, unknown>): string | undefined =>
  typeof value['$ref'] === 'string' && value['$ref'].startsWith(REF_PREFIX) ? value['$ref'].slice(REF_PREFIX.length) : undefined;

/** An object schema whose only properties are JSON-LD keywords, with nothing else to it. */
function isOnlyJsonLd(schema: unknown): boolean {
  if (!isObject(schema) || !isObject(schema['properties'])) return false;
  const names = Object.keys(schema['properties']);
  const structural = ['allOf', 'anyOf', 'oneOf', 'items', 'additionalProperties', '$ref'].some((key) => key in schema);
  return names.length > 0 && names.every(isJsonLdKey) && !structural;
}

/** `collectionOf(member)`'s member schema, or undefined for any other schema. */
function collectionMember(schema: JsonSchema): JsonSchema | undefined {
  const [envelope, members] = (schema['allOf'] as JsonSchema[] | undefined) ?? [];
  if (envelope?.['$ref'] !== COLLECTION_REF) return undefined;
  const member = (members?.['properties'] as Record<string, JsonSchema> | undefined)?.['hydra:member'];
  return member?.['items'] as JsonSchema | undefined;
}

/**
 * The schemas of JSON-LD answers in the plain JSON form `Accept: application/json` gets
 * (`toPlainJson`): no JSON-LD keywords, a collection the array of its members. Components that
 * hold JSON-LD keywords get a variant (`Search.json`), made once, on first use.
 */
export class PlainJsonSchemas {
  readonly variants: Record<string, JsonSchema> = {};
  private readonly holding = new Map<string, boolean>();

  constructor(private readonly components: Readonly<Record<string, JsonSchema>>) {}

  /** Whether an answer of this schema is a JSON-LD resource: it, or a part of its `allOf`, has `@context`. */
  isJsonLd(schema: JsonSchema): boolean {
    const name = refName(schema);
    const resolved = name === undefined ? schema : this.components[name];
    if (resolved === undefined) return false;
    if (isObject(resolved['properties']) && '@context' in resolved['properties']) return true;
    return ((resolved['allOf'] as JsonSchema[] | undefined) ?? []).some((part) => this.isJsonLd(part));
  }

  /** The plain JSON form of a JSON-LD answer's schema. */
  of(schema: JsonSchema): JsonSchema {
    const member = collectionMember(schema);
    return member === undefined ? (this.strip(schema) as JsonSchema) : { type: 'array', items: this.strip(member) };
  }

  /**
   * `value` without JSON-LD keywords. A part that held nothing else (the identifiers of a
   * resource in an `allOf`, the `{"@id": …}` form of a relation among alternatives) is left out
   * of an `allOf` and stands for any object among alternatives, rather than becoming an empty
   * object schema, which generators type as an object that may hold nothing.
   */
  private strip(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.strip(item));
    if (!isObject(value)) return value;
    const name = refName(value);
    if (name !== undefined) return this.holdsJsonLd(name) ? { ...value, $ref: `${REF_PREFIX}${this.variant(name)}` } : value;
    const stripped: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === 'properties' && isObject(child)) {
        stripped[key] = Object.fromEntries(Object.entries(child).filter(([property]) => !isJsonLdKey(property)).map(([property, schema]) => [property, this.strip(schema)]));
      } else if (key === 'allOf' && Array.isArray(child)) {
        stripped[key] = child.filter((part) => !isOnlyJsonLd(part)).map((part) => this.strip(part));
      } else if (ALTERNATIVES.has(key) && Array.isArray(child)) {
        stripped[key] = child.map((part) => (isOnlyJsonLd(part) ? ANY_OBJECT : this.strip(part)));
      } else if (key === 'required' && Array.isArray(child)) {
        stripped[key] = child.filter((property) => typeof property !== 'string' || !isJsonLdKey(property));
      } else {
        stripped[key] = this.strip(child);
      }
    }
    return stripped;
  }

  private variant(name: string): string {
    const variantName = `${name}${VARIANT_SUFFIX}`;
    if (!(variantName in this.variants)) {
      // Placed first: a component that refers to itself meets its own variant under way.
      this.variants[variantName] = {};
      this.variants[variantName] = this.strip(this.components[name]) as JsonSchema;
    }
    return variantName;
  }

  /** Whether a component, or one it refers to, has a JSON-LD keyword among its properties. */
  private holdsJsonLd(name: string): boolean {
    const known = this.holding.get(name);
    if (known !== undefined) return known;
    this.holding.set(name, false);
    const holds = this.anyJsonLdKey(this.components[name]);
    this.holding.set(name, holds);
    return holds;
  }

  private anyJsonLdKey(value: unknown): boolean {
    if (Array.isArray(value)) return value.some((item) => this.anyJsonLdKey(item));
    if (!isObject(value)) return false;
    const name = refName(value);
    if (name !== undefined) return this.holdsJsonLd(name);
    if (isObject(value['properties']) && Object.keys(value['properties']).some(isJsonLdKey)) return true;
    return Object.values(value).some((child) => this.anyJsonLdKey(child));
  }
}
