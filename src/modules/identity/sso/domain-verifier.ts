import { Resolver } from 'node:dns/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';

/**
 * Looks up DNS TXT records: through `DNS_RESOLVER` (`host:port`) when set, so tests and special networks can
 * use their own server, else through the system's resolvers. Short timeouts: an administrator is waiting.
 */
@Injectable()
export class DomainVerifier {
  private readonly logger = new Logger('DomainVerifier');
  private readonly resolver = new Resolver({ timeout: 3000, tries: 2 });

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (config.sso.dnsResolver) {
      try {
        this.resolver.setServers([config.sso.dnsResolver]);
      } catch {
        throw new Error('Configuration error: DNS_RESOLVER must be an IP address and port (host:port)');
      }
    }
  }

  /** Whether a TXT record named `name` has exactly `value` (its strings joined, as RFC 7208 reads them). */
  async hasTxtRecord(name: string, value: string): Promise<boolean> {
    try {
      const records = await this.resolver.resolveTxt(name);
      return records.some((chunks) => chunks.join('') === value);
    } catch (err) {
      this.logger.debug({ err, name }, 'TXT lookup failed');
      return false;
    }
  }
}
