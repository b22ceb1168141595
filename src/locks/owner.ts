// Java locks key ownership on the thread; Node has one thread, so the owner is the request's async
// context. A nested acquire inside the same request sees the same owner (and can re-enter);
// another request sees another.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

const owners = new AsyncLocalStorage<string>();

export function runAsOwner<T>(owner: string, fn: () => Promise<T>): Promise<T> {
  return owners.run(owner, fn);
}

/** The current owner token, or a fresh one for code running outside any request. */
export function currentOwner(): string {
  return owners.getStore() ?? `anonymous:${randomUUID()}`;
}

export function newOwnerToken(instanceId: string): string {
  return `${instanceId}:${randomUUID()}`;
}
