// Ending a ZooKeeper session from outside, as a long pause or a partition would (the tests and the incident gallery).
import { createClient, type Client } from 'node-zookeeper-client';
import { pollUntil } from '../src/time.js';

/**
 * Expires a session from a second client: attach to it and close it, until ZooKeeper answers an
 * attach with "expired". Once is not always enough: the holder's client re-attaches as soon as the
 * second client takes the session over, and a close sent after that is lost with the connection
 * it was sent on (a race of the test's own making).
 */
export async function expireSession(zkConnect: string, sessionId: Buffer, sessionPassword: Buffer, timeoutMs = 15_000): Promise<void> {
  const expired = await pollUntil(async () => (await attachAndClose(zkConnect, sessionId, sessionPassword)) === 'expired', timeoutMs, 0);
  if (!expired) throw new Error(`the session did not expire within ${timeoutMs} ms`);
}

function attachAndClose(zkConnect: string, sessionId: Buffer, sessionPassword: Buffer): Promise<'closed' | 'expired'> {
  // The client accepts sessionId/sessionPassword (lib/ConnectionManager.js); its typings omit them.
  const options = { sessionTimeout: 2_000, sessionId, sessionPassword } as Parameters<typeof createClient>[1];
  const client: Client = createClient(zkConnect, options);
  return new Promise((resolve, reject) => {
    const done = (outcome: 'closed' | 'expired' | Error) => {
      clearTimeout(timer);
      client.close();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(() => done(new Error('could not attach to the session')), 5_000);
    client.once('connected', () => done('closed'));
    client.once('expired', () => done('expired'));
    client.connect();
  });
}
