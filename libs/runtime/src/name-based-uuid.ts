import { createHash } from 'node:crypto';

const namespaces = new Map<string, Buffer>();

function namespaceBytes(namespace: string): Buffer {
  let bytes = namespaces.get(namespace);
  if (bytes === undefined) {
    bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
    if (bytes.length !== 16) throw new Error(`not a UUID namespace: ${namespace}`);
    namespaces.set(namespace, bytes);
  }
  return bytes;
}

/**
 * RFC 4122 version 5 (SHA-1, name-based) UUID: the same value as `uuid`'s `v5(name, namespace)`,
 * computed with Node's hashing directly. Event ids hash the whole event (several KB with an
 * advert's description); `uuid` first turns the name into bytes with a JavaScript loop, which cost
 * more than the hash itself on the ingestion path.
 */
export function nameBasedUuid(name: string, namespace: string): string {
  const hash = createHash('sha1').update(namespaceBytes(namespace)).update(name, 'utf8').digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
