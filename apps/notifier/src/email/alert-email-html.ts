/**
 * The HTML part of an alert e-mail, written for mail clients rather than browsers: nested
 * tables for layout, every style inline (Gmail and Outlook drop most `<style>` rules), 600 px
 * at most and fluid below it so phones show it at their width, system fonts, no script, no
 * external resource but the property pictures. Every string that comes from data (search
 * titles, crawled advert titles, URLs) goes through `escapeHtml`.
 */
import type { PropertyBlock } from './alert-content';

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** For text and for attribute values alike (attributes are always double-quoted here). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);

const FONT = 'font-family:Arial,Helvetica,sans-serif;';
const PAGE_BACKGROUND = '#f2f4f7';
const ACCENT = '#1d4ed8';
const DROP = '#047857';
const RISE = '#b45309';
const MUTED = '#6b7280';
/** The card is 600 px wide with 24 px of padding each side. */
const CONTENT_WIDTH = 552;
/** Most advert pictures are 4:3; `height:auto` keeps the real ratio where CSS applies. */
const PICTURE_HEIGHT = 414;

export interface AlertEmailHtml {
  /** The document's `<title>`. */
  subject: string;
  heading: string;
  /** Shown by inbox lists next to the subject; hidden in the message. */
  preheader: string;
  /** A notice above the properties (the preview's example). */
  notice: string | null;
  blocks: readonly PropertyBlock[];
  /** Why this e-mail came (the search it is for). */
  reason: string;
  unsubscribeUrl: string;
  unsubscribeLabel: string;
}

function pictureRow(block: PropertyBlock): string {
  if (block.picture === null) return '';
  const image =
    `<img src="${escapeHtml(block.picture.url)}" width="${CONTENT_WIDTH}" height="${PICTURE_HEIGHT}" alt="${escapeHtml(block.picture.alt)}" ` +
    `style="display:block;width:100%;max-width:${CONTENT_WIDTH}px;height:auto;border:0;border-radius:6px;">`;
  const linked = block.link === null ? image : `<a href="${escapeHtml(block.link)}" style="text-decoration:none;">${image}</a>`;
  return `<tr><td style="padding:0 0 12px 0;">${linked}</td></tr>`;
}

function titleHtml(block: PropertyBlock): string {
  const title = escapeHtml(block.title);
  return block.link === null ? title : `<a href="${escapeHtml(block.link)}" style="color:#111827;text-decoration:none;">${title}</a>`;
}

function button(link: string): string {
  return (
    '<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin-top:14px;"><tr>' +
    `<td bgcolor="${ACCENT}" style="border-radius:6px;">` +
    `<a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 18px;${FONT}font-size:15px;font-weight:bold;color:#ffffff;text-decoration:none;border-radius:6px;">Voir l’annonce</a>` +
    '</td></tr></table>'
  );
}

function line(text: string, style: string): string {
  return `<p style="margin:6px 0 0 0;${FONT}${style}">${escapeHtml(text)}</p>`;
}

function propertyRow(block: PropertyBlock): string {
  const labelColour = block.category === 'price-drop' ? DROP : ACCENT;
  const body = [
    `<p style="margin:0;${FONT}font-size:12px;font-weight:bold;letter-spacing:0.5px;text-transform:uppercase;color:${labelColour};">${escapeHtml(block.label)}</p>`,
    `<h2 style="margin:4px 0 0 0;${FONT}font-size:18px;line-height:24px;font-weight:bold;color:#111827;">${titleHtml(block)}</h2>`,
    block.price === null ? line('Prix non communiqué', `font-size:16px;color:${MUTED};`) : line(block.price, 'font-size:20px;line-height:26px;font-weight:bold;color:#111827;'),
    block.priceChange === null ? '' : line(block.priceChange.text, `font-size:15px;font-weight:bold;color:${block.priceChange.dropped ? DROP : RISE};`),
    block.features.length === 0 ? '' : line(block.features.join(' · '), 'font-size:15px;line-height:22px;color:#374151;'),
    ...block.changes.map((change) => line(change, `font-size:14px;line-height:20px;color:${MUTED};`)),
    block.link === null ? '' : button(block.link),
  ].join('');
  return (
    `<tr><td style="padding:20px 24px;border-top:1px solid #e5e7eb;">` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">${pictureRow(block)}<tr><td>${body}</td></tr></table>` +
    '</td></tr>'
  );
}

function noticeRow(notice: string | null): string {
  if (notice === null) return '';
  return (
    '<tr><td style="padding:0 24px 16px 24px;">' +
    `<p style="margin:0;padding:12px 14px;background-color:#fef3c7;border-radius:6px;${FONT}font-size:14px;line-height:20px;color:#92400e;">${escapeHtml(notice)}</p>` +
    '</td></tr>'
  );
}

export function alertEmailHtml(email: AlertEmailHtml): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="fr">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="x-apple-disable-message-reformatting">',
    '<meta name="color-scheme" content="light">',
    `<title>${escapeHtml(email.subject)}</title>`,
    '</head>',
    `<body style="margin:0;padding:0;background-color:${PAGE_BACKGROUND};">`,
    `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;font-size:1px;line-height:1px;color:${PAGE_BACKGROUND};">${escapeHtml(email.preheader)}</div>`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:${PAGE_BACKGROUND};">`,
    '<tr><td align="center" style="padding:24px 12px;">',
    '<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background-color:#ffffff;border-radius:8px;">',
    `<tr><td style="padding:24px 24px 16px 24px;">` +
      `<p style="margin:0;${FONT}font-size:13px;color:${MUTED};">Alerte immobilière</p>` +
      `<h1 style="margin:6px 0 0 0;${FONT}font-size:22px;line-height:28px;font-weight:bold;color:#111827;">${escapeHtml(email.heading)}</h1>` +
      '</td></tr>',
    noticeRow(email.notice),
    ...email.blocks.map(propertyRow),
    `<tr><td style="padding:20px 24px 24px 24px;border-top:1px solid #e5e7eb;">` +
      `<p style="margin:0;${FONT}font-size:13px;line-height:19px;color:${MUTED};">${escapeHtml(email.reason)}</p>` +
      `<p style="margin:10px 0 0 0;${FONT}font-size:13px;line-height:19px;"><a href="${escapeHtml(email.unsubscribeUrl)}" style="color:${ACCENT};text-decoration:underline;">${escapeHtml(email.unsubscribeLabel)}</a></p>` +
      '</td></tr>',
    '</table>',
    '</td></tr>',
    '</table>',
    '</body>',
    '</html>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}
