import dns2 from 'dns2';

const { Packet } = dns2;

/**
 * A real DNS server (dns2, UDP) on 127.0.0.1 that answers the TXT records a test sets and NXDOMAIN-style empty
 * answers for everything else. Point the service at it with `DNS_RESOLVER=127.0.0.1:<port>`.
 */
export class TestDnsServer {
  private readonly records = new Map<string, string[]>();
  /** A and AAAA answers per name: each query takes the next answer, the last one repeats. */
  private readonly addresses = new Map<string, string[][]>();
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
          if (question.type === Packet.TYPE.A || question.type === Packet.TYPE.AAAA) {
            const sequence = this.addresses.get(name);
            const v6 = question.type === Packet.TYPE.AAAA;
            // The sequence moves on with A questions (a look-up asks A and AAAA once each).
            const answer = !sequence ? [] : !v6 && sequence.length > 1 ? sequence.shift()! : sequence[0];
            for (const address of answer.filter((a) => a.includes(':') === v6)) {
              response.answers.push(
                Packet.createResourceFromQuestion(question, {
                  type: question.type,
                  class: Packet.CLASS.IN,
                  ttl: 0,
                  address,
                }),
              );
            }
            continue;
          }
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

  /**
   * A/AAAA answers for `name`, one list per look-up in order (the last repeats): `setAddresses('x.test',
   * ['127.0.0.1'], ['192.0.2.2'])` answers the first look-up with a loopback address and every later one with a
   * private one (DNS rebinding). The sequence moves on with each A question; an answer list may hold both families.
   */
  setAddresses(name: string, ...answers: string[][]): void {
    this.addresses.set(name.toLowerCase(), answers);
  }

  clear(name: string): void {
    this.records.delete(name.toLowerCase());
    this.addresses.delete(name.toLowerCase());
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}
