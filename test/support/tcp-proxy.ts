// A loopback TCP proxy that can lose replies on command: the client's requests reach the server,
// the server's answers never reach the client. That is a "lost reply": the server applied the
// request, and the client cannot tell whether it did. It can also freeze both ways, like a process
// frozen or cut off: the server hears nothing more either (a ZooKeeper session then expires).
import net from 'node:net';
import { pollUntil } from '../../src/time.js';

/** A client's connection and the proxy's own to the server; a silent one passes no answer back. */
interface Pair {
  client: net.Socket;
  server: net.Socket;
  silent?: boolean;
}

export class TcpProxy {
  private readonly pairs = new Set<Pair>();
  private dropping = false;
  private frozen = false;
  /** Set: a new connection is accepted and never answered (not passed on), as a server cut off mid-handshake. */
  private hanging = false;
  /** The connections accepted while hanging, kept open until `heal` or `close`. */
  private readonly hung = new Set<net.Socket>();
  /** Pass only this many bytes of the server's next chunk, then cut every connection (a frame cut in two). */
  private truncateAt: number | undefined;
  /** What clients sent while frozen (it never reached the server), for a test to see that a request was sent. */
  private swallowed = '';

  private constructor(
    private readonly listener: net.Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const listener = net.createServer((client) => proxy?.pipe(client, targetPort));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    proxy = new TcpProxy(listener, (listener.address() as net.AddressInfo).port);
    return proxy;
  }

  /** From now on, bytes from the server are discarded (until `cut`). */
  dropReplies(): void {
    this.dropping = true;
  }

  /**
   * The connections open now pass the client's bytes on but never answer again, and stay open: a
   * peer that went silent without a close. Connections made later work as usual.
   */
  silenceOpenConnections(): void {
    for (const pair of this.pairs) pair.silent = true;
  }

  /**
   * The server's next chunk reaches the client cut short, after `bytes` bytes, and every connection
   * is then closed: the client is left holding part of a frame when it reconnects.
   */
  truncateNextReply(bytes: number): void {
    this.truncateAt = bytes;
  }

  /** From now on, no byte passes either way, on any connection, and every connection stays open (until `cut`). */
  freeze(): void {
    this.frozen = true;
  }

  /** Resolves true once a client has sent `text` into the frozen proxy (a request that never reached the server). */
  untilSwallowed(text: string, timeoutMs = 5_000): Promise<boolean> {
    return pollUntil(() => this.swallowed.includes(text), timeoutMs, 10);
  }

  /**
   * Every open connection is closed (its client reconnects), and every new one is accepted and never
   * answered, staying open: the client's connect succeeds and its handshake hangs, the way a new
   * connection meets a partition or a server too busy to answer. Until `heal`.
   */
  hangNewConnections(): void {
    this.hanging = true;
    this.hungCount = 0;
    this.cut();
  }

  /** New connections are passed on again; the hung ones are closed, so their clients retry. */
  heal(): void {
    this.hanging = false;
    for (const socket of this.hung) socket.destroy();
    this.hung.clear();
  }

  /** How many connections were accepted and left unanswered since `hangNewConnections`: the new connections tried. */
  hungCount = 0;

  /** Closes every open connection, both ways, and passes bytes again for the next ones. */
  cut(): void {
    for (const { client, server } of this.pairs) {
      client.destroy();
      server.destroy();
    }
    this.pairs.clear();
    this.dropping = false;
    this.frozen = false;
    this.swallowed = '';
  }

  async close(): Promise<void> {
    this.heal();
    this.cut();
    await new Promise<void>((resolve) => this.listener.close(() => resolve()));
  }

  private pipe(client: net.Socket, targetPort: number): void {
    if (this.hanging) {
      this.hungCount += 1;
      this.hung.add(client);
      client.on('error', () => undefined);
      client.on('close', () => this.hung.delete(client));
      return;
    }
    const server = net.connect(targetPort, '127.0.0.1');
    const pair: Pair = { client, server };
    this.pairs.add(pair);
    client.on('data', (chunk) => {
      if (!this.frozen) server.write(chunk);
      else this.swallowed += chunk.toString('latin1');
    });
    server.on('data', (chunk: Buffer) => {
      if (this.frozen || this.dropping || pair.silent) return;
      if (this.truncateAt === undefined) {
        client.write(chunk);
        return;
      }
      const part = chunk.subarray(0, this.truncateAt);
      this.truncateAt = undefined;
      client.write(part, () => this.cut());
    });
    const end = () => {
      client.destroy();
      server.destroy();
      this.pairs.delete(pair);
    };
    for (const socket of [client, server]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  }
}
