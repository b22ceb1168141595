// etcd from Debian's etcd-server with its data under <dir>/etcd/<name>: one member, or one of the
// three of the replicated topology.
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

/**
 * The cluster a member belongs to: every member's name and the peer URL the others reach it at
 * (its delaying forwarder's, when the links are delayed: the member announces that one too).
 */
export interface EtcdCluster {
  members: readonly { name: string; peerUrl: string }[];
}

export function etcdSpec(
  name: string,
  ports: { client: number; peer: number },
  dir: string,
  bin: Binaries,
  place: Placement = ON_LOOPBACK,
  cluster?: EtcdCluster,
): ServerSpec {
  const clientUrl = `http://${place.host}:${ports.client}`;
  const listenPeerUrl = `http://${place.host}:${ports.peer}`;
  const members = cluster?.members ?? [{ name, peerUrl: listenPeerUrl }];
  const peerUrl = members.find((m) => m.name === name)?.peerUrl ?? listenPeerUrl;
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
        '--name',
        name,
        '--data-dir',
        path.join(dir, 'etcd', name),
        '--listen-client-urls',
        clientUrl,
        '--advertise-client-urls',
        clientUrl,
        '--listen-peer-urls',
        listenPeerUrl,
        '--initial-advertise-peer-urls',
        peerUrl,
        '--initial-cluster',
        members.map((m) => `${m.name}=${m.peerUrl}`).join(','),
        '--initial-cluster-state',
        'new',
        // etcd raises any lease below 1.5 election timeouts (rounded up to whole seconds): with
        // its defaults (100 ms, 1 s) no lease is shorter than 2 s. At 50 ms and 600 ms the floor
        // is 1 s, as short as a TTL in seconds can be, so the lab's short leases stay short.
        '--heartbeat-interval',
        '50',
        '--election-timeout',
        '600',
        // /metrics on the client URL (etcd_disk_wal_fsync_duration_seconds…), as etcd serves by default.
        '--metrics',
        'basic',
        '--logger',
        'zap',
        '--log-outputs',
        'stderr',
      ],
    }),
    // Serving, not merely running: a member of three answers healthy once the cluster has a leader.
    healthy: () => etcdHealthy(clientUrl),
  };
}
