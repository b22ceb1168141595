// etcd from Debian's etcd-server, one member with its data under <dir>/etcd.
import path from 'node:path';
import type { Binaries } from './packages.js';
import { ON_LOOPBACK, type Placement } from './placement.js';
import { httpGet } from './probes.js';
import type { ServerSpec } from './server.js';

/** `GET /health` answers {"health":"true"} once the member serves requests (it has a leader). */
export async function etcdHealthy(clientUrl: string, timeoutMs = 1_000): Promise<boolean> {
  const reply = await httpGet(`${clientUrl}/health`, timeoutMs);
  return reply?.status === 200 && /"health":\s*"true"/.test(reply.body);
}

export function etcdSpec(name: string, ports: { client: number; peer: number }, dir: string, bin: Binaries, place: Placement = ON_LOOPBACK): ServerSpec {
  const clientUrl = `http://${place.host}:${ports.client}`;
  const peerUrl = `http://${place.host}:${ports.peer}`;
  return {
    name,
    port: ports.client,
    ...place,
    logFile: path.join(dir, 'logs', `${name}.log`),
    startTimeoutMs: 20_000,
    stopGraceMs: 5_000,
    launch: () => ({
      command: bin.etcd,
      args: [
        '--name', name,
        '--data-dir', path.join(dir, 'etcd', name),
        '--listen-client-urls', clientUrl,
        '--advertise-client-urls', clientUrl,
        '--listen-peer-urls', peerUrl,
        '--initial-advertise-peer-urls', peerUrl,
        '--initial-cluster', `${name}=${peerUrl}`,
        '--initial-cluster-state', 'new',
        // /metrics on the client URL (etcd_disk_wal_fsync_duration_seconds…), as etcd serves by default.
        '--metrics', 'basic',
        '--logger', 'zap',
        '--log-outputs', 'stderr',
      ],
    }),
    healthy: () => etcdHealthy(clientUrl),
  };
}
