// What a chaos run records, and what the checker reads: every request sent (with its answer), every
// fault injected and healed, the store's count around each strategy's slice, and GET /sales.
import type { Grudge } from '../../src/net/grudge.js';
import type { StoreKind } from '../../src/stock/store.js';
import type { CheckParams, Sent } from '../client.js';
import type { FaultKind } from './plan.js';

/** How a strategy runs in the chaos workload, and what the catalog lets it do under faults. */
export interface ChaosStrategy {
  name: string;
  store: StoreKind;
  /** fenced=1 on every request: its lock issues fencing tokens. */
  fenced: boolean;
  /** It takes a lock, so the pause hooks apply (pause=after-acquire). */
  locks: boolean;
  /**
   * The catalog's own word that it may oversell when a holder is paused past its lease (holderPause
   * 'oversells', no fencing): an oversell is then reported, not failed.
   */
  mayOversellUnderPause: boolean;
  /**
   * Its stock, or its unfenced lock, lives on the main Redis, whose replication is asynchronous: a
   * Sentinel failover may lose writes the old master acknowledged (the course's §2.9), so an oversell,
   * or a Redis sale record lost with its deduction, is then reported, not failed.
   */
  mayLoseInFailover: boolean;
  /** Parameters every request of it carries beyond the workload's own (a soak's leakKb); absent: none. */
  params?: CheckParams;
}

export interface Request extends Sent {
  strategy: string;
  store: StoreKind;
  /** ms after the run's start, when sent / answered */
  at: number;
  end: number;
}

/** One strategy's turn: its requests were all over before the next turn began. */
export interface Slice {
  strategy: string;
  store: StoreKind;
  startMs: number;
  endMs: number;
  leftBefore: number;
  leftAfter: number;
  /** The recovery probes after the last heal are a slice of their own. */
  kind: 'load' | 'recovery';
}

export interface FaultEvent {
  kind: FaultKind;
  target: string;
  /** ms after the run's start; healedMs undefined = never healed by the nemesis (the final heal did it) */
  injectedMs: number;
  healedMs?: number;
  /** what happened instead, or on the way: "the holder answered before stopping", "restart failed: …" */
  note?: string;
  /**
   * A partition's cut: its grudge by the plan's names (app-0…, redis, redlock-0…), as text too.
   * injectedMs is when the cut took effect; healMs when the links healed (healedMs may come later:
   * on the replicated topology the fault is over once Sentinel has settled).
   */
  partition?: { grudge: Grudge; text: string; healMs?: number };
}

export interface Leftover {
  where: string;
  what: string;
}

export interface ChaosHistory {
  seed: number;
  strategies: ChaosStrategy[];
  requests: Request[];
  slices: Slice[];
  faults: FaultEvent[];
  /** GET /sales at the end: request id → deductions committed */
  sales: Record<string, number>;
  /** ms after the run's start when the last server was healed (the final heal included) */
  lastHealMs: number;
  /** per strategy: ms from the last heal to its first 200; null = not within the bound */
  recoveryMs: Record<string, number | null>;
  recoveryBoundMs: number;
  /** locks or ZooKeeper nodes still held once everything had healed (after the leases' bound) */
  leftovers: Leftover[];
  /** Servers that exited with no fault on them (restarted by the run), ms after the start. */
  crashes: { target: string; atMs: number }[];
  /** Every chaos request id starts with this; an id in /sales with it that was never sent is a phantom sale. */
  idPrefix: string;
  /** Run on the replicated topology: a frozen Redis master is failed over too. */
  replicated?: boolean;
  /** Every server in a network namespace of its own (the hosts topologies): partitions join the faults. */
  hosts?: boolean;
}
