/**
 * A stable operation id for client generators: `prefix` and the words of `name` in camel case
 * (`get` + `/searches/:id/deliveries` → `getSearchesIdDeliveries`, `webhook` + `ad.update.price`
 * → `webhookAdUpdatePrice`); `root` when `name` has no word (`/`).
 */
export function operationIdOf(prefix: string, name: string): string {
  const words = name.split(/[^a-zA-Z0-9]+/).filter(Boolean);
  return prefix + (words.length > 0 ? words : ['root']).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}
