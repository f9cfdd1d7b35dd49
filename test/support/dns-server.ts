import dns2 from 'dns2';

const { Packet } = dns2;

/**
 * A real DNS server (dns2, UDP) on 127.0.0.1 that answers the TXT records a test sets and NXDOMAIN-style empty
 * answers for everything else. Point the service at it with `DNS_RESOLVER=127.0.0.1:<port>`.
 */
export class TestDnsServer {
  private readonly records = new Map<string, string[]>();
  private server?: ReturnType<typeof dns2.createServer>;
  port = 0;

  /** Every query name seen, lower-cased (to assert that a lookup did or did not happen). */
  readonly queries: string[] = [];

  async start(): Promise<void> {
    this.server = dns2.createServer({
      udp: true,
      handle: (request, send) => {
        const response = Packet.createResponseFromRequest(request);
        for (const question of request.questions) {
          const name = question.name.toLowerCase();
          this.queries.push(name);
          for (const data of this.records.get(name) ?? []) {
            response.answers.push(
              Packet.createResourceFromQuestion(question, {
                type: Packet.TYPE.TXT,
                class: Packet.CLASS.IN,
                ttl: 0,
                data,
              }),
            );
          }
        }
        void send(response);
      },
    });
    await this.server.listen({ udp: { port: 0, address: '127.0.0.1' } });
    this.port = this.server.addresses().udp?.port ?? 0;
    if (!this.port) throw new Error('The DNS server did not start');
  }

  /** `host:port` for DNS_RESOLVER. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  setTxt(name: string, ...values: string[]): void {
    this.records.set(name.toLowerCase(), values);
  }

  clear(name: string): void {
    this.records.delete(name.toLowerCase());
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}
