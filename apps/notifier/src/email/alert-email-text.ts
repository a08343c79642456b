/**
 * The plain-text part of an alert e-mail: the same facts as the HTML part, one property after
 * the other, with the links written out (text clients and screen readers that pick this part
 * lose nothing but the pictures).
 */
import type { PropertyBlock } from './alert-content';
import { NBSP } from './french-format';

export interface AlertEmailText {
  heading: string;
  notice: string | null;
  blocks: readonly PropertyBlock[];
  reason: string;
  unsubscribeUrl: string;
  unsubscribeLabel: string;
}

function blockText(block: PropertyBlock): string[] {
  return [
    `— ${block.label} —`,
    block.title,
    [block.price ?? 'Prix non communiqué', ...block.features].join(' · '),
    ...(block.priceChange === null ? [] : [block.priceChange.text]),
    ...block.changes,
    ...(block.link === null ? [] : [`Voir l’annonce${NBSP}: ${block.link}`]),
  ];
}

export function alertEmailText(email: AlertEmailText): string {
  const sections: string[][] = [
    [email.heading],
    ...(email.notice === null ? [] : [[email.notice]]),
    ...email.blocks.map(blockText),
    ['-----', email.reason, `${email.unsubscribeLabel}${NBSP}: ${email.unsubscribeUrl}`],
  ];
  return `${sections.map((lines) => lines.join('\n')).join('\n\n')}\n`;
}
