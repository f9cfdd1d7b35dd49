import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { Agent as HttpAgent, type AgentOptions } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import type { Agent as UndiciAgent } from 'undici';
import { isAllowedAddress } from './public-address';

/** Why an outbound connection was refused (the host, or what it resolves to, is not a public address). */
export class AddressRefused extends Error {
  readonly code = 'ADDRESS_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'AddressRefused';
  }
}

export interface GuardedNetOptions {
  /** Loopback addresses allowed (never in production). */
  allowLoopback: boolean;
  /** `host:port` of the DNS server names are resolved through; null: the system's look-up. */
  resolver?: string | null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function bare(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/**
 * Every outbound request to an address a user or an organization gave (extensions-v3 6.7) goes through one of
 * these agents. Their DNS look-up resolves the name once, refuses the connection when ANY answer is not a public
 * address (core `public-address` rules; loopback only when `allowLoopback`), and hands the connection exactly the
 * addresses it checked: there is no second look-up between the check and the connect, so a name that changes its
 * answer (DNS rebinding) cannot reach a private address. Literal addresses (no look-up) are checked when the
 * socket is created. One undici dispatcher (for `guardedFetch`) and Node http/https agents (for libraries that
 * take one, such as web-push) share the same look-up.
 */
export class GuardedNet {
  readonly allowLoopback: boolean;
  readonly lookup: LookupFunction;
  readonly httpAgent: HttpAgent;
  readonly httpsAgent: HttpsAgent;
  private readonly resolver: Resolver | null;
  private undiciAgent: UndiciAgent | null = null;

  constructor(options: GuardedNetOptions) {
    this.allowLoopback = options.allowLoopback;
    this.resolver = null;
    if (options.resolver) {
      const resolver = new Resolver({ timeout: 3000, tries: 2 });
      try {
        resolver.setServers([options.resolver]);
      } catch {
        throw new Error('Configuration error: DNS_RESOLVER must be an IP address and port (host:port)');
      }
      this.resolver = resolver;
    }
    this.lookup = this.guardedLookup.bind(this);
    const agentOptions: AgentOptions = { keepAlive: true, maxSockets: 64, lookup: this.lookup };
    this.httpAgent = guardAgent(new HttpAgent(agentOptions), this);
    this.httpsAgent = guardAgent(new HttpsAgent(agentOptions), this);
  }

  /**
   * The undici dispatcher behind `guardedFetch`, made at the first outbound fetch: undici is ~110 modules that a
   * process which never calls out (and every test boot) need not load.
   */
  get dispatcher(): UndiciAgent {
    if (this.undiciAgent) return this.undiciAgent;
    const { Agent, buildConnector } = undici();
    const connector = buildConnector({ lookup: this.lookup });
    this.undiciAgent = new Agent({
      connect: (opts, callback) => {
        const refused = this.literalProblem(opts.hostname);
        if (refused) return callback(refused, null);
        return connector(opts, callback);
      },
    });
    return this.undiciAgent;
  }

  /** `fetch` through the guarded dispatcher (redirects are the caller's choice; each hop is checked the same way). */
  readonly guardedFetch = (input: string | URL, init?: RequestInit): Promise<Response> =>
    undici().fetch(input, {
      ...(init as object),
      dispatcher: this.dispatcher,
    }) as unknown as Promise<Response>;

  /** Why a literal address may not be connected to, or null (names are checked in the look-up). */
  literalProblem(hostname: string | undefined): AddressRefused | null {
    const host = bare(hostname ?? '');
    if (!isIP(host)) return null;
    return isAllowedAddress(host, this.allowLoopback) ? null : new AddressRefused(`${host} is a non-public address`);
  }

  /**
   * Whether a host is acceptable now (for a friendly 422 when an address is saved): null, or why not. Not a
   * substitute for the connection's own check, which runs again at every connection.
   */
  async hostProblem(hostname: string): Promise<string | null> {
    const literal = this.literalProblem(hostname);
    if (literal) return literal.message;
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolve(hostname, undefined);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return `${hostname} does not resolve`;
    if (addresses.some(({ address }) => !isAllowedAddress(address, this.allowLoopback))) {
      return `${hostname} resolves to a non-public address`;
    }
    return null;
  }

  async onModuleDestroy(): Promise<void> {
    await this.close();
  }

  async close(): Promise<void> {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    await this.undiciAgent?.close();
  }

  private guardedLookup(
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void {
    this.resolve(hostname, options.family).then(
      (addresses) => {
        if (addresses.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`${hostname} does not resolve`);
          err.code = 'ENOTFOUND';
          return callback(err, '', 0);
        }
        if (addresses.some(({ address }) => !isAllowedAddress(address, this.allowLoopback))) {
          return callback(new AddressRefused(`${hostname} resolves to a non-public address`), '', 0);
        }
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  }

  /** Every address of the name (both families unless one is asked for), from the configured resolver or the system. */
  private async resolve(hostname: string, family: number | string | undefined): Promise<LookupAddress[]> {
    const host = bare(hostname);
    const fam = family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : Number(family ?? 0);
    if (isIP(host)) return [{ address: host, family: isIP(host) }];
    if (!this.resolver) {
      return new Promise((resolve, reject) => {
        systemLookup(host, { all: true, family: fam, verbatim: true }, (err, list) =>
          err ? reject(err) : resolve(list),
        );
      });
    }
    const name = host.toLowerCase();
    if (name === 'localhost' || name.endsWith('.localhost')) {
      // RFC 6761: never sent to a DNS server.
      return [
        ...(fam !== 6 ? [{ address: '127.0.0.1', family: 4 }] : []),
        ...(fam !== 4 ? [{ address: '::1', family: 6 }] : []),
      ];
    }
    const resolver = this.resolver;
    const [v4, v6] = await Promise.all([
      fam === 6 ? [] : resolver.resolve4(host).catch(() => [] as string[]),
      fam === 4 ? [] : resolver.resolve6(host).catch(() => [] as string[]),
    ]);
    return [...v4.map((address) => ({ address, family: 4 })), ...v6.map((address) => ({ address, family: 6 }))];
  }
}

/** Names of this machine (plain http is acceptable only to these, outside production). */
export function isLoopbackHostname(hostname: string): boolean {
  const host = bare(hostname).toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Checks literal addresses when a socket is created (a literal host is connected to without a look-up). */
function guardAgent<A extends HttpAgent>(agent: A, net: GuardedNet): A {
  const create = (agent as unknown as { createConnection: (...args: unknown[]) => Socket }).createConnection.bind(
    agent,
  );
  (agent as unknown as { createConnection: unknown }).createConnection = (
    options: { host?: string; hostname?: string },
    callback?: (err: Error | null, socket?: Socket) => void,
  ) => {
    const refused = net.literalProblem(options.host ?? options.hostname);
    if (refused) {
      if (callback) {
        callback(refused);
        return undefined;
      }
      throw refused;
    }
    return create(options, callback);
  };
  return agent;
}

function undici(): typeof import('undici') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('undici') as typeof import('undici');
}
