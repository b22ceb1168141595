// A link that stops answering, as a partition makes it (packets dropped: no FIN, no RST), between a
// client and one server: a loopback proxy passes the client's bytes on, and from a chosen
// statement's text on drops everything the server sends back on that connection, keeping it open.
// Sequenced on the text the client sends, never on time. Used by the statement-bound tests.
import net from 'node:net';

/** A loopback proxy to `target`; `muteOn(text)`: a connection that sends `text` gets no byte back from then on, and stays open. */
export class MutingProxy {
  private trigger: string | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(private readonly server: net.Server) {}

  static async start(target: { host: string; port: number }): Promise<MutingProxy> {
    const server = net.createServer();
    const proxy = new MutingProxy(server);
    server.on('connection', (client) => proxy.pipe(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  muteOn(text: string | undefined): void {
    this.trigger = text;
  }

  private pipe(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    let muted = false;
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => this.sockets.delete(s));
    }
    client.on('data', (chunk) => {
      if (this.trigger !== undefined && chunk.includes(this.trigger)) muted = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!muted) client.write(chunk);
    });
    // The client giving up closes the server's side too, so the server ends the session (and rolls
    // back what it had not committed) now, and the test can read what it applied.
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The call's outcome and how long it took, or a failure naming the hang if it has none within `hangMs`. */
export async function settled<T>(call: Promise<T>, hangMs: number): Promise<{ value?: T; error?: unknown; ms: number }> {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${hangMs} ms: the statement hung`)), hangMs);
  });
  try {
    return { value: await Promise.race([call, hang]), ms: Date.now() - t0 };
  } catch (error) {
    if (error instanceof Error && error.message.includes('the statement hung')) throw error;
    return { error, ms: Date.now() - t0 };
  } finally {
    clearTimeout(timer);
  }
}
