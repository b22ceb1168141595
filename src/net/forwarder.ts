// A userspace TCP forwarder that adds a round-trip delay (this kernel has no netem): each chunk read
// from one side is written to the other rttMs/2 later, each direction on its own, in order. Half-
// closes and resets are passed on in the same order; a failed connect to the target resets the
// client. At rttMs 0 it is plain piping: nothing is scheduled, no timer runs.
import net, { type Socket } from 'node:net';
import { sharedScheduler, type DelayScheduler } from './delay-scheduler.js';
import { Direction, type Tally } from './direction.js';

export interface Endpoint {
  host: string;
  port: number;
}

export interface ForwarderOptions {
  /** Where to listen; port 0 picks a free port (see Forwarder.port). */
  listen: Endpoint;
  target: Endpoint;
  /** The round trip to add, in ms (half each way); 0 by default. */
  rttMs?: number;
}

export interface ForwarderStats {
  /** Connections accepted since the start. */
  connections: number;
  /** Connections still open (either side). */
  open: number;
  /** Bytes delivered client → target. */
  bytesUp: number;
  /** Bytes delivered target → client. */
  bytesDown: number;
  /** Chunks, ends, resets and connects that went through the delay queue (0 while the rtt is 0). */
  delayed: number;
}

export interface Forwarder {
  /** The bound port. */
  readonly port: number;
  readonly rttMs: number;
  /** Changes the round trip; chunks read from now on get the new delay, live connections included. */
  setRtt(ms: number): void;
  stats(): ForwarderStats;
  /** Stops listening and destroys every connection pair. */
  close(): Promise<void>;
}

function checkRtt(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`rttMs must be a finite number ≥ 0, got ${ms}`);
  return ms;
}

/**
 * Passes a socket's events on to its directions: what it sends goes into `from`; once it is gone
 * without a clean end (an error, a reset, a refused connect, a close before its end), the other
 * side is reset after what it sent, and nothing more is written to it.
 */
function wire(socket: Socket, from: Direction, to: Direction): void {
  // The 'close' handler is a backstop: a socket closes without its end only after an 'error' (fail
  // ran already) or when the forwarder destroyed it, once its pair had failed or close() had killed
  // both directions; then fail() finds both dead and does nothing.
  // Stryker disable next-line BooleanLiteral: equivalent in effect (the backstop above never acts)
  let ended = false;
  let failed = false;
  const fail = (): void => {
    if (failed) return;
    failed = true;
    to.kill();
    from.reset();
  };
  socket.on('data', (chunk: Buffer) => from.data(chunk));
  socket.on('end', () => {
    ended = true;
    from.end();
  });
  socket.on('error', fail);
  // Stryker disable next-line StringLiteral,BlockStatement,ArrowFunction: equivalent in effect (the backstop above never acts)
  socket.on('close', () => {
    if (!ended) fail();
  });
}

export async function startForwarder(options: ForwarderOptions, scheduler: DelayScheduler = sharedScheduler()): Promise<Forwarder> {
  const { listen, target } = options;
  let rttMs = checkRtt(options.rttMs ?? 0);
  // Even at rtt 0: a later setRtt must be precise from its first chunk.
  await scheduler.ready();
  const oneWayMs = (): number => rttMs / 2;
  const up: Tally = { bytes: 0, delayed: 0 };
  const down: Tally = { bytes: 0, delayed: 0 };
  const live = new Set<{ client: Socket; server: Socket; directions: Direction[] }>();
  let connections = 0;
  let closing = false;

  // allowHalfOpen on both legs: a FIN from one side must not end the other leg's write side by
  // itself; it is passed on in order instead.
  const listener = net.createServer({ allowHalfOpen: true }, (client) => {
    // Stryker disable next-line BlockStatement: unreachable: close() closes the listening handle at once, so no connection is accepted after it
    if (closing) {
      client.destroy();
      return;
    }
    connections++;
    const server = new net.Socket({ allowHalfOpen: true });
    // The endpoints choose their own Nagle on their own sockets; the forwarder's legs add none.
    client.setNoDelay(true);
    server.setNoDelay(true);
    const toServer = new Direction(client, server, oneWayMs, scheduler, up);
    const toClient = new Direction(server, client, oneWayMs, scheduler, down);
    wire(client, toServer, toClient);
    wire(server, toClient, toServer);
    // The connect is a SYN: it reaches the target one way later, ahead of the client's first bytes.
    toServer.then(() => server.connect(target.port, target.host));
    const pair = { client, server, directions: [toServer, toClient] };
    live.add(pair);
    let closed = 0;
    const onClose = (): void => {
      if (++closed === 2) live.delete(pair);
    };
    client.once('close', onClose);
    server.once('close', onClose);
  });

  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(listen.port, listen.host, () => {
      // Stryker disable next-line StringLiteral: equivalent: a later reject of the settled promise does nothing, and the handler below catches errors after the start
      listener.off('error', reject);
      resolve();
    });
  });
  // Accept errors after the start (EMFILE and the like) cost one connection, never the process.
  listener.on('error', () => {});
  const address = listener.address();
  // Stryker disable next-line LogicalOperator,StringLiteral: a listener on host:port always has an AddressInfo; the check narrows the type
  if (address === null || typeof address === 'string') throw new Error('forwarder: listening on a non-TCP address');

  return {
    port: address.port,
    get rttMs() {
      return rttMs;
    },
    setRtt(ms: number) {
      rttMs = checkRtt(ms);
    },
    stats() {
      return { connections, open: live.size, bytesUp: up.bytes, bytesDown: down.bytes, delayed: up.delayed + down.delayed };
    },
    async close() {
      // Stryker disable next-line BooleanLiteral: equivalent: `closing` guards a branch no connection reaches (see the listener)
      closing = true;
      const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const pair of live) {
        for (const direction of pair.directions) direction.kill();
        pair.client.destroy();
        pair.server.destroy();
      }
      live.clear();
      await stopped;
    },
  };
}
