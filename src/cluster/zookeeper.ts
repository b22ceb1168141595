// ZooKeeper run straight from Debian's jars with its own config and data under <dir>: one standalone
// server, or one node of a three-node ensemble (TOPOLOGY=replicated).
import fs from 'node:fs';
import path from 'node:path';
import type { ZkNodePorts } from './layout.js';
import type { Binaries } from './packages.js';
import { ON_LOOPBACK, type Placement } from './placement.js';
import { zkServing } from './probes.js';
import type { ServerSpec } from './server.js';

/** The ensemble a node belongs to, and which of its nodes it is (its myid is index + 1). */
export interface ZkEnsembleMember {
  nodes: readonly ZkNodePorts[];
  /** Each node's address, node by node (loopback for all when absent). */
  hosts?: readonly string[];
  index: number;
}

export function zooCfg(port: number, dataDir: string, ensemble?: ZkEnsembleMember, host = '127.0.0.1'): string {
  return [
    '# written by stocklab (src/cluster/zookeeper.ts) at every start',
    // Short ticks so the lab's short session timeouts are allowed (min session = 2 ticks = 1 s).
    'tickTime=500',
    `dataDir=${dataDir}`,
    `clientPort=${port}`,
    `clientPortAddress=${host}`,
    // The AdminServer would listen on 8080 (nginx's port) on every interface.
    'admin.enableServer=false',
    // mntr, cons, wchs: the soak reads ZooKeeper's connections, ephemeral nodes and watches.
    '4lw.commands.whitelist=ruok,srvr,mntr,cons,wchs',
    'maxClientCnxns=0',
    'initLimit=10',
    'syncLimit=5',
    // Every node with its own quorum and election ports (on loopback, or on its own address).
    ...(ensemble?.nodes.map((n, i) => `server.${i + 1}=${ensemble.hosts?.[i] ?? '127.0.0.1'}:${n.peer}:${n.election}`) ?? []),
    '',
  ].join('\n');
}

export function zookeeperSpec(name: string, port: number, dir: string, bin: Binaries, ensemble?: ZkEnsembleMember, place: Placement = ON_LOOPBACK): ServerSpec {
  const home = ensemble ? path.join(dir, 'zookeeper', name) : path.join(dir, 'zookeeper');
  const dataDir = path.join(home, 'data');
  const cfgFile = path.join(home, 'zoo.cfg');
  // The jar's manifest lists its other dependencies; slf4j-simple sends its log to stderr (our log file).
  const classpath = [bin.zookeeperJar, '/usr/share/java/slf4j-simple.jar'].filter((j) => fs.existsSync(j)).join(':');
  return {
    name,
    port,
    ...place,
    logFile: path.join(dir, 'logs', `${name}.log`),
    startTimeoutMs: 30_000,
    stopGraceMs: 10_000,
    prepare() {
      fs.mkdirSync(dataDir, { recursive: true });
      fs.writeFileSync(cfgFile, zooCfg(port, dataDir, ensemble, place.host));
      if (ensemble) fs.writeFileSync(path.join(dataDir, 'myid'), `${ensemble.index + 1}\n`);
    },
    launch: () => ({
      command: bin.java,
      args: [
        // a small heap, serial GC and C1 only: a lab server on 2 cores that should start fast
        '-Xms32m',
        '-Xmx256m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-Djava.net.preferIPv4Stack=true',
        '-Dzookeeper.admin.enableServer=false',
        '-Dzookeeper.jmx.log4j.disable=true',
        '-cp',
        classpath,
        // QuorumPeerMain runs a standalone server too when the config names no ensemble.
        ensemble ? 'org.apache.zookeeper.server.quorum.QuorumPeerMain' : 'org.apache.zookeeper.server.ZooKeeperServerMain',
        cfgFile,
      ],
    }),
    // Serving, not merely running: an ensemble node answers only once it has a quorum.
    healthy: () => zkServing({ host: place.host, port }),
  };
}
