/**
 * French wording and typography for alert e-mails: figures as `Intl.NumberFormat('fr-FR')` writes
 * them (`274 550 €`, `45 m²`, `-5,2 %`, with the narrow no-break space ICU puts between digit
 * groups), a no-break space before `:` and inside « », and a narrow one before `; ! ?`, so that
 * a mail client never wraps a line between a word and its punctuation.
 */
import { PROPERTY_TYPE_LABELS } from '@immo/contracts';

export const NBSP = '\u00a0';
/** Before `; ! ?` and between digit groups, as the Imprimerie nationale's rules ask. */
export const NARROW_NBSP = '\u202f';

const euros = new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });
const plainNumber = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat('fr-FR', { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' });

/** `274 550 €` (whole euros: adverts never show cents). */
export const formatPrice = (value: number): string => euros.format(value);

/** `45 m²`, `45,5 m²`. */
export const formatSurface = (value: number): string => `${plainNumber.format(value)}${NBSP}m²`;

/** `-5,2 %` from a variation in percent (`-5.2`), as advert events carry it. */
export const formatPercent = (percentValue: number): string => percent.format(percentValue / 100);

/** `1 pièce`, `3 pièces`. */
export const formatRooms = (rooms: number): string => `${plainNumber.format(rooms)}${NBSP}${rooms >= 2 ? 'pièces' : 'pièce'}`;

/** `« Appartements Lyon 3e »`. */
export const quoted = (text: string): string => `«${NBSP}${text}${NBSP}»`;

/** `3 nouveaux biens`, `1 nouveau bien`: French plurals start at 2. */
export function counted(count: number, singular: string, plural: string): string {
  return `${count}${NBSP}${count >= 2 ? plural : singular}`;
}

/** `a`, `a et b`, `a, b et c`. */
export function listed(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} et ${parts[parts.length - 1]}`;
}

/** Cuts a text to `max` characters at most, with `…` when it was longer (subjects stay readable in an inbox). */
export function shortened(text: string, max: number): string {
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('').trimEnd()}…`;
}

export const propertyTypeName = (code: number | null): string => (code === null ? 'Bien' : ((PROPERTY_TYPE_LABELS as Readonly<Record<number, string>>)[code] ?? 'Bien'));
