/**
 * A JSON-style object: `{}` literals, JSON.parse output and null-prototype objects. Arrays,
 * byte arrays (EventStoreDB hands non-JSON metadata over as a Uint8Array), dates and other class
 * instances are not, so a payload guard never mistakes them for a record of fields.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
