// The lab's servers as StatefulSets, each with the settings the native cluster starts it with
// (native.ts) on the image docker compose runs (images.ts).
import { SENTINEL_MASTER_NAME, etcdNames, type ClusterConfig } from '../cluster/layout.js';
import { IMAGES } from './images.js';
import { etcdArgs, mysqlArgs, postgresArgs, redisArgs, sentinelConf, zookeeperConf, zookeeperJvmFlags } from './native.js';
import { ConfigMap, POD_NAME_ENV, execProbe, labels, resources, serverSet, tcpProbe, type Manifest } from './objects.js';
import { ENSEMBLE, PORTS, REDLOCK_MASTERS, podHost } from './topology.js';

/** The credentials the servers and the instances share; the lab's defaults, to be changed anywhere it matters. */
export const CREDENTIALS = 'stocklab-credentials';
const secretEnv = (name: string, key = name) => ({ name, valueFrom: { secretKeyRef: { name: CREDENTIALS, key } } });

const SMALL = resources('100m', '64Mi', '500m', '256Mi');

export function mysql(cluster: ClusterConfig): Manifest[] {
  return serverSet({
    name: 'mysql',
    replicas: 1,
    dataPath: '/var/lib/mysql',
    container: {
      name: 'mysql',
      image: IMAGES.mysql,
      args: mysqlArgs(cluster),
      env: [
        secretEnv('MYSQL_ROOT_PASSWORD'),
        { name: 'MYSQL_DATABASE', value: cluster.mysql.database },
        { name: 'MYSQL_USER', value: cluster.mysql.user },
        secretEnv('MYSQL_PASSWORD'),
      ],
      ports: [{ name: 'mysql', containerPort: PORTS.mysql }],
      readinessProbe: execProbe(['sh', '-c', `mysqladmin ping -h 127.0.0.1 -u${cluster.mysql.user} -p"$MYSQL_PASSWORD"`]),
      livenessProbe: { ...tcpProbe(PORTS.mysql, 10), initialDelaySeconds: 60 },
      resources: resources('250m', '512Mi', '2', '1Gi'),
    },
  });
}

export function postgres(cluster: ClusterConfig): Manifest[] {
  return serverSet({
    name: 'postgres',
    replicas: 1,
    dataPath: '/var/lib/postgresql/data',
    container: {
      name: 'postgres',
      image: IMAGES.postgres,
      args: ['postgres', ...postgresArgs(cluster)],
      env: [
        { name: 'POSTGRES_USER', value: cluster.postgres.user },
        secretEnv('POSTGRES_PASSWORD', 'PG_PASSWORD'),
        { name: 'POSTGRES_DB', value: cluster.postgres.database },
      ],
      ports: [{ name: 'postgres', containerPort: PORTS.postgres }],
      readinessProbe: execProbe(['pg_isready', '-h', '127.0.0.1', '-U', cluster.postgres.user, '-d', cluster.postgres.database]),
      livenessProbe: { ...tcpProbe(PORTS.postgres, 10), initialDelaySeconds: 30 },
      resources: resources('250m', '256Mi', '2', '1Gi'),
    },
  });
}

/** Off loopback protected mode refuses every peer without a password, as in the native hosts topology. */
const OPEN_TO_PEERS = ['--protected-mode', 'no'];

function redisContainer(name: string, args: string[]) {
  return {
    name,
    image: IMAGES.redis,
    args: [...args, ...OPEN_TO_PEERS],
    ports: [{ name: 'redis', containerPort: PORTS.redis }],
    readinessProbe: execProbe(['redis-cli', 'ping'], 2),
    livenessProbe: tcpProbe(PORTS.redis, 5),
    resources: SMALL,
  };
}

/** The main Redis: the Redis stock key and the single-server locks. */
export function redis(cluster: ClusterConfig): Manifest[] {
  return serverSet({ name: 'redis', replicas: 1, dataPath: '/data', container: redisContainer('redis', redisArgs('redis', PORTS.redis, cluster)) });
}

/** RedLock's five independent masters: one StatefulSet, five servers that never replicate. */
export function redlock(cluster: ClusterConfig): Manifest[] {
  const persistence = () => cluster.redlockMasters.persistence;
  return serverSet({
    name: 'redlock',
    replicas: REDLOCK_MASTERS,
    dataPath: '/data',
    container: redisContainer('redis', redisArgs('redlock-0', PORTS.redis, cluster, persistence)),
  });
}

/** Replicated: the main Redis's replica. */
export function redisReplica(cluster: ClusterConfig): Manifest[] {
  return serverSet({
    name: 'redis-replica',
    replicas: 1,
    dataPath: '/data',
    container: redisContainer('redis', [...redisArgs('redis-replica', PORTS.redis, cluster), '--replicaof', 'redis', String(PORTS.redis)]),
  });
}

/** Replicated: three Sentinels watching the main Redis (quorum 2); Sentinel rewrites its file, so each copies it to its own folder first. */
export function sentinels(cluster: ClusterConfig): Manifest[] {
  // The master is named by its Service (natively an address): Sentinel resolves a name only when told to.
  const conf = new ConfigMap({
    metadata: { name: 'sentinel-conf', labels: labels('sentinel') },
    data: {
      'sentinel.conf': sentinelConf(PORTS.sentinel, { host: 'redis', port: PORTS.redis }, cluster, '/data').replace(
        `sentinel monitor ${SENTINEL_MASTER_NAME}`,
        `sentinel resolve-hostnames yes\nsentinel monitor ${SENTINEL_MASTER_NAME}`,
      ),
    },
  });
  return [
    conf,
    ...serverSet({
      name: 'sentinel',
      replicas: ENSEMBLE,
      dataPath: '/data',
      container: {
        name: 'sentinel',
        image: IMAGES.redis,
        command: ['sh', '-c', 'cp /etc/stocklab/sentinel.conf /data/sentinel.conf && exec redis-server /data/sentinel.conf --sentinel'],
        ports: [{ name: 'sentinel', containerPort: PORTS.sentinel }],
        volumeMounts: [{ name: 'conf', mountPath: '/etc/stocklab' }],
        readinessProbe: execProbe(['redis-cli', '-p', String(PORTS.sentinel), 'ping'], 2),
        livenessProbe: tcpProbe(PORTS.sentinel, 5),
        resources: SMALL,
      },
      pod: { volumes: [{ name: 'conf', configMap: { name: 'sentinel-conf' } }] },
    }),
  ];
}

/** ZooKeeper: one server, or the replicated topology's ensemble of three, each node's myid its ordinal + 1. */
export function zookeeper(cluster: ClusterConfig): Manifest[] {
  const nodes = cluster.replicated?.zookeeper;
  const ensemble = nodes && { nodes, hosts: nodes.map((_n, i) => podHost(`zookeeper-${i}`)), index: 0 };
  // A node binds its quorum ports on its own name, which resolves to its pod only from inside it.
  const cfg = zookeeperConf(PORTS.zookeeper, '/data', ensemble) + (ensemble ? 'quorumListenOnAllIPs=true\n' : '');
  const conf = new ConfigMap({ metadata: { name: 'zookeeper-conf', labels: labels('zookeeper') }, data: { 'zoo.cfg': cfg } });
  return [
    conf,
    ...serverSet({
      name: 'zookeeper',
      replicas: nodes ? ENSEMBLE : 1,
      dataPath: '/data',
      container: {
        name: 'zookeeper',
        image: IMAGES.zookeeper,
        // The pod's ordinal (zookeeper-2 → 2) + 1 is its myid, as server.N in zoo.cfg counts.
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${HOSTNAME##*-} is the shell's, not a template's
        command: ['sh', '-c', 'echo $(( ${HOSTNAME##*-} + 1 )) > /data/myid && exec zkServer.sh start-foreground'],
        env: [
          { name: 'ZOOCFGDIR', value: '/etc/stocklab' },
          { name: 'JVMFLAGS', value: zookeeperJvmFlags() },
        ],
        ports: [
          { name: 'client', containerPort: PORTS.zookeeper },
          ...(nodes
            ? [
                { name: 'peer', containerPort: PORTS.zookeeperPeer },
                { name: 'election', containerPort: PORTS.zookeeperElection },
              ]
            : []),
        ],
        volumeMounts: [{ name: 'conf', mountPath: '/etc/stocklab' }],
        // Ready once it serves as a member (srvr names its Mode): asked by bash itself, not by
        // zkServer.sh status, which starts a JVM every period (docs/compose.md, health checks).
        readinessProbe: execProbe(['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${PORTS.zookeeper} && printf srvr >&3 && grep -q '^Mode: ' <&3`]),
        livenessProbe: { ...tcpProbe(PORTS.zookeeper, 10), initialDelaySeconds: 30 },
        resources: resources('100m', '256Mi', '1', '512Mi'),
      },
      pod: { volumes: [{ name: 'conf', configMap: { name: 'zookeeper-conf' } }] },
    }),
  ];
}

/** etcd: one member, or three; each member named after its pod. */
export function etcd(cluster: ClusterConfig): Manifest[] {
  const count = etcdNames(cluster).length;
  const members = Array.from({ length: count }, (_v, i) => ({ name: `etcd-${i}`, peerUrl: `http://${podHost(`etcd-${i}`)}:${PORTS.etcdPeer}` }));
  return serverSet({
    name: 'etcd',
    replicas: count,
    dataPath: '/var/run/etcd',
    container: {
      name: 'etcd',
      image: IMAGES.etcd,
      command: ['/usr/local/bin/etcd'],
      args: etcdArgs(members, '/var/run/etcd/data', { client: PORTS.etcd, peer: PORTS.etcdPeer }, '$(POD_NAME).etcd'),
      env: [POD_NAME_ENV],
      ports: [
        { name: 'client', containerPort: PORTS.etcd },
        { name: 'peer', containerPort: PORTS.etcdPeer },
      ],
      readinessProbe: execProbe(['etcdctl', `--endpoints=http://127.0.0.1:${PORTS.etcd}`, 'endpoint', 'health']),
      livenessProbe: { ...tcpProbe(PORTS.etcd, 10), initialDelaySeconds: 30 },
      resources: resources('100m', '128Mi', '1', '512Mi'),
    },
  });
}
