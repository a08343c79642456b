/**
 * The alert e-mail of a saved search: from a batch of its notifications (the webhook bodies the
 * delivery log holds), a French subject, an HTML part and a plain-text part saying the same
 * thing, one block per property, with the search's unsubscribe link in both parts. Pure: no
 * framework, no I/O, so the sending pipeline and the preview render the very same message.
 */
import { propertyBlock, safeUrl, type PropertyBlock } from './alert-content';
import { alertEmailHtml } from './alert-email-html';
import { alertEmailText } from './alert-email-text';
import { propertyAlerts, type AlertEmailItem, type PropertyAlert } from './alert-properties';
import { NBSP, counted, formatPercent, formatPrice, listed, quoted, shortened } from './french-format';

export type { AlertEmailItem } from './alert-properties';

export interface AlertEmailInput {
  /** Null or blank: the e-mail says "votre recherche". */
  searchTitle: string | null;
  /** At least one; those whose payload cannot be read are left out. */
  items: AlertEmailItem[];
  /** The search's one-click way out, shown in both parts. */
  unsubscribeUrl: string;
  /** When the product shows adverts on its own pages: links go to `<advertLinkBase>/<advert uuid>` instead of the source site. */
  advertLinkBase?: string;
  /** A preview built from a sample property rather than the search's own notifications: said in the subject and the message. */
  example?: boolean;
}

export interface AlertEmail {
  subject: string;
  html: string;
  text: string;
}

/** Nothing to tell: no notification was given, or none could be read. */
export class EmptyAlertEmailError extends Error {
  override readonly name = 'EmptyAlertEmailError';
}

/** A subject past this loses its end in most inbox lists anyway. */
const SUBJECT_TITLE_MAX = 60;
const UNSUBSCRIBE_LABEL = 'Ne plus recevoir les alertes de cette recherche';
const EXAMPLE_PREFIX = `Exemple${NBSP}: `;
const EXAMPLE_NOTICE =
  `Exemple${NBSP}: cette recherche n’a pas encore envoyé d’alerte. Voici à quoi ressemblera le prochain e-mail, ` +
  'avec un bien donné à titre d’exemple.';

function searchName(title: string | null, max?: number): string {
  const trimmed = title?.trim() ?? '';
  if (trimmed === '') return 'votre recherche';
  return quoted(max === undefined ? trimmed : shortened(trimmed, max));
}

/**
 * `3 nouveaux biens pour « … »`, `Baisse de prix : 274 550 € (-5,2 %) pour « … »`,
 * `2 nouveaux biens et 1 baisse de prix pour « … »`.
 */
export function alertSummary(alerts: readonly PropertyAlert[], target: string): string {
  const count = (category: PropertyAlert['category']) => alerts.filter((alert) => alert.category === category).length;
  const [fresh, drops, updates] = [count('new'), count('price-drop'), count('update')];
  if (drops > 0 && fresh === 0 && updates === 0) {
    const only = alerts[0]?.priceChange;
    if (drops === 1 && only) return `Baisse de prix${NBSP}: ${formatPrice(only.to)} (${formatPercent(only.percent)}) pour ${target}`;
    return `Baisses de prix${NBSP}: ${counted(drops, 'bien', 'biens')} pour ${target}`;
  }
  const parts = [
    fresh > 0 ? counted(fresh, 'nouveau bien', 'nouveaux biens') : '',
    drops > 0 ? counted(drops, 'baisse de prix', 'baisses de prix') : '',
    updates > 0 ? counted(updates, 'bien mis à jour', 'biens mis à jour') : '',
  ].filter((part) => part !== '');
  return `${listed(parts)} pour ${target}`;
}

function preheaderOf(blocks: readonly PropertyBlock[]): string {
  const [first] = blocks;
  if (first === undefined) return '';
  const lead = [first.title, first.price].filter((part): part is string => part !== null).join(' · ');
  return blocks.length > 1 ? `${lead}, et ${counted(blocks.length - 1, 'autre bien', 'autres biens')}` : lead;
}

export function renderAlertEmail(input: AlertEmailInput): AlertEmail {
  if (input.items.length === 0) throw new EmptyAlertEmailError('An alert e-mail needs at least one notification: the batch is empty.');
  const unsubscribeUrl = safeUrl(input.unsubscribeUrl, ['https:', 'http:']);
  // An e-mail without a working way out must not leave: refuse it rather than send it.
  if (unsubscribeUrl === null) throw new Error(`The unsubscribe URL must be an absolute http(s) URL, not ${JSON.stringify(input.unsubscribeUrl.slice(0, 200))}.`);
  const { alerts, skipped } = propertyAlerts(input.items);
  if (alerts.length === 0) throw new EmptyAlertEmailError(`None of the ${skipped} notifications of the batch could be read: there is nothing to tell.`);

  const blocks = alerts.map((alert) => propertyBlock(alert, input.advertLinkBase));
  const heading = alertSummary(alerts, searchName(input.searchTitle, SUBJECT_TITLE_MAX));
  const subject = input.example === true ? `${EXAMPLE_PREFIX}${heading}` : heading;
  const notice = input.example === true ? EXAMPLE_NOTICE : null;
  const reason = `Vous recevez cet e-mail car les alertes de ${input.searchTitle?.trim() ? `la recherche ${searchName(input.searchTitle)}` : 'votre recherche'} sont activées.`;
  const common = { heading, notice, blocks, reason, unsubscribeUrl, unsubscribeLabel: UNSUBSCRIBE_LABEL };
  return {
    subject,
    html: alertEmailHtml({ ...common, subject, preheader: preheaderOf(blocks) }),
    text: alertEmailText(common),
  };
}
