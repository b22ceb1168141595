import { callDependency } from '../dependency.js';

/** A Redis call: an unreachable server becomes DependencyDownError('redis') → 503. */
export function redisCall<T>(call: () => Promise<T>): Promise<T> {
  return callDependency('redis', call);
}
