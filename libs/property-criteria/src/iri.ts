/**
 * Place and property references as clients send them, reduced to the ids documents carry.
 *
 * `/cities/<id>` and `/departments/<id>` are the IRIs the location autocomplete hands out; the bare
 * id is accepted too, as the geo service accepts it for `excludedCitiesIds`. A property is named by
 * its uuid, its document IRI or its property IRI, all of which clients find in a PropertyDocument.
 */
import { z } from 'zod';

const CITY = /^(?:\/cities\/)?([1-9]\d{0,8})$/;
const DEPARTMENT = /^(?:\/departments\/)?([1-9]\d{0,8})$/;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const PROPERTY = new RegExp(`^(?:/documents/properties/|/properties/)?(${UUID})$`, 'i');

// A saved search stored as JSON may hold ids and codes as numbers; a code that lost its leading
// zero that way is then refused by its pattern rather than silently matching another place.
const asText = (value: unknown): unknown => (typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : value);

function captured(pattern: RegExp, message: string) {
  return z
    .preprocess(asText, z.string({ error: message }))
    .refine((text) => pattern.test(text), { message })
    .transform((text) => (pattern.exec(text) as RegExpExecArray)[1] as string);
}

export const cityIdValue = captured(CITY, 'must be a city IRI such as /cities/75056').transform(Number);
export const departmentIdValue = captured(DEPARTMENT, 'must be a department IRI such as /departments/75').transform(Number);
/** Lower case: documents store uuids in lower case and they are compared as text. */
export const propertyIdValue = captured(PROPERTY, 'must be a property uuid, /documents/properties/<uuid> or /properties/<uuid>').transform(
  (uuid) => uuid.toLowerCase(),
);

/** INSEE commune code: five digits, or 2A/2B and three digits in Corsica; upper-cased. */
export const inseeCodeValue = captured(/^(\d{5}|2[AB]\d{3})$/i, 'must be a 5-character INSEE code').transform((code) => code.toUpperCase());

export const zipcodeValue = captured(/^(\d{5})$/, 'must be a 5-digit postal code');
