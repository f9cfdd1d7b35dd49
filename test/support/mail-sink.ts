import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** Every header, names lowercased (a repeated header keeps its last value). */
  headers: Record<string, string>;
  /** The SMTP envelope's recipients (RCPT TO), lowercased. */
  envelopeTo: string[];
}

/**
 * A real SMTP server on loopback that keeps every message it receives, parsed. Tests read codes and links
 * from the delivered message, exactly as a person would.
 */
export class MailSink {
  readonly messages: CaughtMail[] = [];
  /** Messages by recipient: suites that wait for thousands of invitations ask `to(address)` for each, often. */
  private readonly byTo = new Map<string, CaughtMail[]>();
  private readonly events = new EventEmitter();
  private server?: SMTPServer;
  port = 0;

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          PostalMime.parse(Buffer.concat(chunks))
            .then((email) => {
              const mail: CaughtMail = {
                to: (email.to ?? []).map((a) => ('address' in a && a.address ? a.address.toLowerCase() : '')),
                from: email.from && 'address' in email.from ? (email.from.address ?? '') : '',
                subject: email.subject ?? '',
                text: email.text ?? '',
                html: email.html ?? '',
                messageId: email.messageId ?? '',
                headers: Object.fromEntries(email.headers.map((h) => [h.key.toLowerCase(), h.value])),
                envelopeTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              };
              this.messages.push(mail);
              for (const address of new Set(mail.to)) {
                const list = this.byTo.get(address);
                if (list) list.push(mail);
                else this.byTo.set(address, [mail]);
              }
              this.events.emit('mail', mail);
              callback();
            })
            .catch((err: Error) => callback(err));
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Resolves with the first message (already received or arriving) that matches; rejects after `timeoutMs`. */
  waitFor(match: (m: CaughtMail) => boolean, timeoutMs = 15_000): Promise<CaughtMail> {
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const onMail = (m: CaughtMail): void => {
        if (!match(m)) return;
        clearTimeout(timer);
        this.events.off('mail', onMail);
        resolve(m);
      };
      const timer = setTimeout(() => {
        this.events.off('mail', onMail);
        reject(new Error(`No matching mail within ${timeoutMs} ms (got ${this.messages.length} messages)`));
      }, timeoutMs);
      this.events.on('mail', onMail);
    });
  }

  /** The newest message to `address` that arrived after `since` messages had been seen. */
  waitForTo(address: string, opts: { after?: number; subject?: RegExp } = {}): Promise<CaughtMail> {
    const after = opts.after ?? 0;
    const addr = address.toLowerCase();
    return this.waitFor(
      (m) =>
        this.messages.indexOf(m) >= after && m.to.includes(addr) && (!opts.subject || opts.subject.test(m.subject)),
    );
  }

  to(address: string): CaughtMail[] {
    return [...(this.byTo.get(address.toLowerCase()) ?? [])];
  }

  count(): number {
    return this.messages.length;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The first 6-digit code in a message's text. */
export function codeFrom(mail: CaughtMail): string {
  const m = /\b(\d{6})\b/.exec(mail.text);
  if (!m) throw new Error(`No 6-digit code in mail "${mail.subject}"`);
  return m[1];
}
