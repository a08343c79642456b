/**
 * The e-mail side of the notifier, put together: the SMTP mailer, a breaker per SMTP server, and
 * the batcher forming e-mails from what waits. Without SMTP_URL or SMTP_ROUTES there is none:
 * nothing waits for an e-mail and none is formed.
 */
import type { NotifierConfig } from '@immo/service-kit';
import type { EmailChannel } from '../deliveries/delivery-dispatcher';
import { EndpointBreakers } from '../delivery/endpoint-breakers';
import { renderAlertEmail } from './alert-email';
import type { ComposeEmail } from './email-batcher';
import { SmtpMailer } from './smtp-mailer';
import type { SmtpOutcome } from './smtp-outcome';

/** The message of a batch: the alert e-mail of its notifications. */
export const composeAlertEmail: ComposeEmail = ({ searchTitle, items, unsubscribeUrl }) =>
  renderAlertEmail({ searchTitle, items: items.map(({ kind, payload, createdAt }) => ({ kind, payload, createdAt })), unsubscribeUrl });

export interface EmailAlerts {
  mailer: SmtpMailer;
  channel: EmailChannel;
}

export function emailAlertsOf(config: Pick<NotifierConfig, 'SMTP_URL' | 'SMTP_ROUTES' | 'MAIL_FROM' | 'MAIL_TIMEOUT_MS'>): EmailAlerts | null {
  const mailer = new SmtpMailer({ defaultUrl: config.SMTP_URL, routes: config.SMTP_ROUTES, from: config.MAIL_FROM, timeoutMs: config.MAIL_TIMEOUT_MS });
  if (!mailer.enabled) return null;
  // An SMTP server refusing one message (5xx: an unknown mailbox) is not unwell; one that does
  // not answer, or says it is not available (421), is.
  const breakers = new EndpointBreakers<SmtpOutcome>({ isUnwell: (outcome) => outcome.statusCode === null || outcome.statusCode === 421 });
  return { mailer, channel: { serverFor: (recipient) => mailer.serverFor(recipient), send: (email) => mailer.send(email), breakers } };
}
