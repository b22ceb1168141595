// The hosts topology keeps nginx in a namespace of its own; this forwarder, on the machine,
// publishes its port on 127.0.0.1 as every other topology does, so clients need not know.
import type { HostPort } from '../config.js';
import { forwarderSpec } from './links.js';
import { healthOk } from './probes.js';
import type { ServerSpec } from './server.js';

export const PUBLISH_NAME = 'nginx-publish';

export function publishSpec(port: number, target: HostPort, dir: string): ServerSpec {
  // through it, nginx answers for an instance
  return forwarderSpec({ name: PUBLISH_NAME, listen: { host: '127.0.0.1', port }, target, dir, healthy: () => healthOk(port) });
}
