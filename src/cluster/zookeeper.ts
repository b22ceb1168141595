// ZooKeeper standalone, run straight from Debian's jars with its own config and data under <dir>.
import fs from 'node:fs';
import path from 'node:path';
import type { Binaries } from './packages.js';
import { zkRuok } from './probes.js';
import type { ServerSpec } from './server.js';

export function zooCfg(port: number, dataDir: string): string {
  return [
    '# written by stocklab (src/cluster/zookeeper.ts) at every start',
    // Short ticks so the lab's short session timeouts are allowed (min session = 2 ticks = 1 s).
    'tickTime=500',
    `dataDir=${dataDir}`,
    `clientPort=${port}`,
    'clientPortAddress=127.0.0.1',
    // The AdminServer would listen on 8080 (nginx's port) on every interface.
    'admin.enableServer=false',
    '4lw.commands.whitelist=ruok,srvr',
    'maxClientCnxns=0',
    'initLimit=10',
    'syncLimit=5',
    '',
  ].join('\n');
}

export function zookeeperSpec(port: number, dir: string, bin: Binaries): ServerSpec {
  const home = path.join(dir, 'zookeeper');
  const dataDir = path.join(home, 'data');
  const cfgFile = path.join(home, 'zoo.cfg');
  // The jar's manifest lists its other dependencies; slf4j-simple sends its log to stderr (our log file).
  const classpath = [bin.zookeeperJar, '/usr/share/java/slf4j-simple.jar'].filter((j) => fs.existsSync(j)).join(':');
  return {
    name: 'zookeeper',
    port,
    logFile: path.join(dir, 'logs', 'zookeeper.log'),
    startTimeoutMs: 30_000,
    stopGraceMs: 10_000,
    prepare() {
      fs.mkdirSync(dataDir, { recursive: true });
      fs.writeFileSync(cfgFile, zooCfg(port, dataDir));
    },
    launch: () => ({
      command: bin.java,
      args: [
        // a small heap, serial GC and C1 only: a lab server on 2 cores that should start fast
        '-Xms32m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1',
        '-Djava.net.preferIPv4Stack=true',
        '-Dzookeeper.admin.enableServer=false',
        '-Dzookeeper.jmx.log4j.disable=true',
        '-cp', classpath,
        'org.apache.zookeeper.server.ZooKeeperServerMain',
        cfgFile,
      ],
    }),
    healthy: () => zkRuok(port),
  };
}
