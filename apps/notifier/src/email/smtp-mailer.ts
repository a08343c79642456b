/**
 * Sends alert e-mails over SMTP (nodemailer, one pooled transport per SMTP server): through
 * SMTP_URL, or through the server SMTP_ROUTES names for the recipient's domain. Each message
 * carries its delivery id as `Message-ID` (the same on every attempt, so a receiving system can
 * tell a retry from a new message) and the one-click unsubscribe headers of RFC 8058.
 */
import { createTransport, type Transporter } from 'nodemailer';
import type { SmtpOutcome } from './smtp-outcome';

export interface EmailMessage {
  subject: string;
  html: string;
  text: string;
}

export interface OutgoingEmail {
  id: string;
  to: string;
  message: EmailMessage;
  /** HTTPS link that turns the search's notifications off (GET shows a page, POST does it). */
  unsubscribeUrl: string;
}

export interface SmtpMailerOptions {
  /** Where e-mails go unless a route says otherwise; unset with no routes: no e-mail alerts. */
  defaultUrl: string | undefined;
  routes: readonly { domain: string; url: string }[];
  from: string;
  timeoutMs: number;
  /** Connections kept open to each SMTP server. */
  connectionsPerServer?: number;
}

/** The host and port of an SMTP URL, without its credentials: the key of its breaker and queue. */
export function smtpServerOf(url: string): string {
  const parsed = new URL(url);
  return `smtp:${parsed.hostname}:${parsed.port || (parsed.protocol === 'smtps:' ? '465' : '587')}`;
}

export class SmtpMailer {
  private readonly transports = new Map<string, Transporter>();

  constructor(private readonly options: SmtpMailerOptions) {}

  /** Whether any SMTP server is configured. */
  get enabled(): boolean {
    return this.options.defaultUrl !== undefined || this.options.routes.length > 0;
  }

  /** The SMTP URL a recipient's e-mails go through; null when none serves it. */
  urlFor(recipient: string): string | null {
    const domain = recipient.slice(recipient.lastIndexOf('@') + 1).toLowerCase();
    const route = this.options.routes.find((candidate) => domain === candidate.domain || domain.endsWith(`.${candidate.domain}`));
    return route?.url ?? this.options.defaultUrl ?? null;
  }

  /** The server a recipient's e-mails go through, as the breakers and the fair queue name it. */
  serverFor(recipient: string): string {
    const url = this.urlFor(recipient);
    return url === null ? 'smtp:none' : smtpServerOf(url);
  }

  async send(email: OutgoingEmail): Promise<SmtpOutcome> {
    const url = this.urlFor(email.to);
    if (url === null) return { statusCode: null, durationMs: 0, error: `no SMTP server is configured for ${email.to} (SMTP_URL, SMTP_ROUTES)` };
    const started = performance.now();
    try {
      const info = (await this.transportFor(url).sendMail({
        from: this.options.from,
        to: email.to,
        subject: email.message.subject,
        text: email.message.text,
        html: email.message.html,
        messageId: `<${email.id}@immo-alerts>`,
        list: { unsubscribe: { url: email.unsubscribeUrl, comment: 'Ne plus recevoir ces alertes' } },
        headers: {
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          // An automatic message (RFC 3834): no vacation replies to it.
          'Auto-Submitted': 'auto-generated',
        },
      })) as { response?: string };
      return { statusCode: replyCode(info.response) ?? 250, durationMs: performance.now() - started, error: null };
    } catch (error) {
      const failure = error as { responseCode?: number; response?: string; code?: string; message?: string };
      const statusCode = typeof failure.responseCode === 'number' ? failure.responseCode : null;
      return { statusCode, durationMs: performance.now() - started, error: (failure.response ?? failure.message ?? String(error)).slice(0, 300) };
    }
  }

  close(): void {
    for (const transport of this.transports.values()) transport.close();
    this.transports.clear();
  }

  private transportFor(url: string): Transporter {
    let transport = this.transports.get(url);
    if (!transport) {
      const { timeoutMs } = this.options;
      transport = createTransport({
        url,
        pool: true,
        maxConnections: this.options.connectionsPerServer ?? 5,
        // A server that accepts the connection and never greets or answers fails the attempt in time.
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      });
      this.transports.set(url, transport);
    }
    return transport;
  }
}

function replyCode(response: string | undefined): number | null {
  const match = /^(\d{3})/.exec(response ?? '');
  return match ? Number(match[1]) : null;
}
