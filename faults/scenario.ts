// What a scenario is: one module exporting { name, description, run(ctx) → rows }, registered in
// scenarios/index.ts. The context gives it the cluster and the run's settings, nothing more.
import type { RunningCluster } from '../src/cluster/cluster.js';
import type { FaultRow } from './row.js';

export type LabTopology = 'single' | 'replicated' | 'hosts' | 'hosts,replicated';

export interface FaultSizes {
  /** Units in stock when a case starts. */
  initial: number;
  /** N: units sold by other instances while a holder is frozen (holder-pause, zk-session-expiry). */
  sell: number;
  /** Clients sending, one request after the other, while a dependency stops (dependency-stop). */
  inFlight: number;
}

export const DEFAULT_SIZES: FaultSizes = { initial: 100, sell: 20, inFlight: 6 };

export interface FaultContext {
  cluster: RunningCluster;
  sizes: FaultSizes;
  /** False when --strategy leaves this strategy out. */
  wants(strategy: string): boolean;
  /** Progress, one line at a time (stderr in the CLI). */
  log(line: string): void;
  /** A directory of the run's own, for files a scenario needs (a second nginx's prefix). */
  workDir: string;
}

export interface Scenario {
  name: string;
  /**
   * 'replicated': it needs the replicated topology (Sentinel, the ZooKeeper ensemble); 'hosts': a
   * network namespace per server, so links can be cut (root only); 'hosts,replicated': both. Each
   * gets a cluster of its own.
   */
  topology?: LabTopology;
  /** 'partition': named with the others of its family, `--scenario partition` runs them all. */
  family?: 'partition';
  /** One paragraph: the fault, how it is built, what is expected. The report prints it. */
  description: string;
  run(ctx: FaultContext): Promise<FaultRow[]>;
}
