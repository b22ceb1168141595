// Owner tokens: one per request, unique across instances, so a lock value or node names who holds it.
import { randomUUID } from 'node:crypto';

export function newOwnerToken(instanceId: string): string {
  return `${instanceId}:${randomUUID()}`;
}
