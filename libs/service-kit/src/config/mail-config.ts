import { z } from 'zod';

const smtpUrl = z.string().regex(/^smtps?:\/\/[^\s/]+(:\d+)?\/?(\?[^\s]*)?$/, 'must be an smtp:// or smtps:// URL (user:password@host:port)');

/**
 * `domain=url` pairs, comma-separated: recipients of that domain (or its subdomains) are sent
 * through that SMTP server rather than SMTP_URL (an agency relaying its own domain, say).
 */
const smtpRoutes = z
  .string()
  .default('')
  .transform((value, ctx) => {
    const routes: { domain: string; url: string }[] = [];
    for (const pair of value.split(',').map((part) => part.trim()).filter(Boolean)) {
      const [domain, url] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (!pair.includes('=') || !/^[a-z0-9.-]+\.[a-z]{2,}$/i.test(domain) || !smtpUrl.safeParse(url).success) {
        ctx.addIssue({ code: 'custom', message: `"${pair.replace(/\/\/[^@/]*@/, '//…@')}" is not domain=smtp://host:port` });
        return z.NEVER;
      }
      routes.push({ domain: domain.toLowerCase(), url });
    }
    return routes;
  });

/** The notifier's e-mail alerts: where they are sent from and through, and how they are batched. */
export const mailConfigShape = {
  /** SMTP server e-mails go through (with TLS and authentication in the URL); unset or empty: no e-mail alerts. */
  SMTP_URL: z.preprocess((value) => (value === '' ? undefined : value), smtpUrl.optional()),
  SMTP_ROUTES: smtpRoutes,
  MAIL_FROM: z.string().min(3).default('Immo Alerts <alertes@immo-alerts.localhost>'),
  /** Facts for one recipient and search arriving within this time go out as one e-mail. */
  MAIL_BATCH_WINDOW_MS: z.coerce.number().int().min(0).max(24 * 3600 * 1000).default(5 * 60_000),
  /** E-mails to one address in an hour at most; the rest waits, nothing is dropped. */
  MAIL_MAX_PER_RECIPIENT_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(12),
  /** An SMTP server must accept a message within this time. */
  MAIL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /** The public address of the API, for the links e-mails carry (unsubscribe). */
  PUBLIC_BASE_URL: z
    .string()
    .regex(/^https?:\/\/[^\s]+[^/\s]$/, 'must be an http(s):// URL without a trailing slash')
    .default('http://127.0.0.1:3000'),
};
