// Partitions in the chaos nemesis (hosts topology), pure: the plan draws Jepsen's shapes over the
// cluster's nodes from the seed, one cut at a time, each healed before the run ends; the checker
// excuses what a cut could have done (a lease lock's holder cut off, a Redis failover Sentinel
// made) only in the turns it struck, and never a double sale or an exact strategy's oversell; a
// turn's count waits until nothing a cut held up can still land.
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../faults/client.js';
import { checkHistory } from '../../faults/chaos/checker.js';
import { cutsAnInstance, cutsRedisFromSentinel, holdsUpWritesTo } from '../../faults/chaos/cuts.js';
import type { ChaosHistory, ChaosStrategy, FaultEvent, Request } from '../../faults/chaos/history.js';
import { faultLine } from '../../faults/chaos/fault-line.js';
import { ChaosNetwork, QUIET_SLACK_MS } from '../../faults/chaos/network.js';
import { isPartitionKind, NETWORK_TARGET, planFaults, type PlannedFault } from '../../faults/chaos/plan.js';
import { topologyOf } from '../../faults/chaos/report.js';
import { partitionNodes } from '../../faults/chaos/run.js';
import { chaosStrategies } from '../../faults/chaos/strategies.js';
import { cut, describeGrudge, hears, isolate, oneWay, type Grudge } from '../../src/net/grudge.js';
import { planHostsLayout } from '../../src/net/hosts.js';

/** The hosts topology's nodes as run.ts names them: the instances, then every server but nginx. */
const SINGLE_NODES = ['app-0', 'app-1', 'app-2', 'mysql', 'redis', 'redlock-0', 'redlock-1', 'redlock-2', 'redlock-3', 'redlock-4', 'zookeeper'];
const REPLICATED_NODES = [...SINGLE_NODES, 'redis-replica', 'sentinel-0', 'sentinel-1', 'sentinel-2', 'zookeeper-1', 'zookeeper-2'];
const shape = { instances: 3, redlockMasters: 5, seconds: 600, seed: 42, partitionNodes: SINGLE_NODES };
const partitionsOf = (plan: PlannedFault[]) => plan.filter((f) => isPartitionKind(f.kind));

/** Whether b hears a, for every ordered pair. */
const heard = (g: Grudge, nodes: readonly string[]) => nodes.map((b) => nodes.filter((a) => a !== b && hears(g, b, a)));

describe('the plan draws partitions on the hosts topology', () => {
  it('names the nodes app-0… and every server but nginx, from the cluster layout', () => {
    const layout = planHostsLayout(['mysql', 'redis', 'redlock-0', 'zookeeper', 'app-41000', 'app-41100', 'nginx'], 'a1b2c3', '198.18.9.0/24');
    expect(partitionNodes(layout)).toEqual(['app-0', 'app-1', 'mysql', 'redis', 'redlock-0', 'zookeeper']);
    expect(partitionNodes(undefined)).toBeUndefined();
  });

  it('the same seed gives the same cuts; another seed, others; without hosts, none (the loopback seeds keep their schedules)', () => {
    expect(planFaults(shape)).toEqual(planFaults(shape));
    expect(partitionsOf(planFaults({ ...shape, seed: 43 }))).not.toEqual(partitionsOf(planFaults(shape)));
    const { partitionNodes: _nodes, ...loopback } = shape;
    expect(partitionsOf(planFaults(loopback))).toEqual([]);
    expect(partitionsOf(planFaults({ ...loopback, replicated: true }))).toEqual([]);
  });

  it("draws every one of Jepsen's shapes over ten minutes, on the single and the replicated cluster", () => {
    for (const nodes of [SINGLE_NODES, REPLICATED_NODES]) {
      const kinds = new Set(partitionsOf(planFaults({ ...shape, partitionNodes: nodes, replicated: nodes === REPLICATED_NODES })).map((f) => f.kind));
      expect([...kinds].sort()).toEqual(['partition-bridge', 'partition-halves', 'partition-isolate', 'partition-majorities-ring', 'partition-one-way']);
    }
  });

  /** What is wrong with a partition's grudge as its shape over the nodes: nothing, for a valid one. */
  function shapeProblems(f: PlannedFault, nodes: readonly string[]): string[] {
    const g = f.grudge ?? {};
    const n = nodes.length;
    const problems: string[] = [];
    if (f.target !== NETWORK_TARGET) problems.push(`target ${f.target}`);
    for (const [node, from] of Object.entries(g)) {
      if (!nodes.includes(node) || from.some((x) => !nodes.includes(x))) problems.push(`a node outside the cluster: ${node} drops ${from.join(',')}`);
      if (from.includes(node)) problems.push(`${node} drops itself`);
    }
    const hearsCount = heard(g, nodes).map((h) => h.length);
    const norm = (x: Grudge) => JSON.stringify(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)));
    const same = (a: Grudge, b: Grudge, what: string) => norm(a) !== norm(b) && problems.push(`not ${what}`);
    switch (f.kind) {
      case 'partition-halves': {
        // two sides, ⌊n/2⌋ and the rest, each hearing only itself
        const small = Math.floor(n / 2);
        const want = [...Array<number>(small).fill(small - 1), ...Array<number>(n - small).fill(n - small - 1)].sort();
        if (JSON.stringify([...hearsCount].sort()) !== JSON.stringify(want)) problems.push('not two halves');
        break;
      }
      case 'partition-isolate': {
        const alone = nodes.filter((x) => (g[x] ?? []).length === n - 1);
        if (alone.length !== 1) problems.push(`${alone.length} nodes alone`);
        else same(g, isolate(nodes, alone[0]!), 'one node isolated');
        break;
      }
      case 'partition-bridge': {
        // one node hears and is heard by all; the rest split in two that do not hear each other
        const bridgeNode = nodes.filter((x) => (g[x] ?? []).length === 0 && nodes.every((y) => hears(g, y, x)));
        if (bridgeNode.length !== 1) {
          problems.push(`${bridgeNode.length} bridge nodes`);
          break;
        }
        const rest = nodes.filter((x) => x !== bridgeNode[0]);
        const sideA = rest.filter((x) => x === rest[0] || hears(g, x, rest[0]!));
        same(
          g,
          cut(
            sideA,
            rest.filter((x) => !sideA.includes(x)),
          ),
          'two sides and a bridge',
        );
        break;
      }
      case 'partition-majorities-ring': {
        // each hears a majority (itself counted); no two hear the same one
        const majority = Math.floor(n / 2) + 1;
        if (hearsCount.some((c) => c + 1 !== majority)) problems.push('a node that hears no majority');
        const sets = nodes.map((b) => [b, ...nodes.filter((a) => a !== b && hears(g, b, a))].sort().join(','));
        if (new Set(sets).size !== n) problems.push('two nodes that hear the same majority');
        break;
      }
      case 'partition-one-way': {
        // a halving cut one way only: every node of one side drops the whole other side, which hears it
        const droppers = Object.keys(g);
        const dropped = [...new Set(Object.values(g).flat())];
        same(g, oneWay(dropped, droppers), 'one way');
        if (droppers.length + dropped.length !== n || droppers.length !== n - Math.floor(n / 2)) problems.push('not a halving');
        break;
      }
      default:
        problems.push(`unexpected ${f.kind}`);
    }
    return problems.map((p) => `${f.kind} (${describeGrudge(g)}): ${p}`);
  }

  it('each grudge is a valid shape over the nodes', () => {
    for (const nodes of [SINGLE_NODES, REPLICATED_NODES]) {
      for (const seed of [1, 2, 3, 42]) {
        const cuts = partitionsOf(planFaults({ ...shape, seed, partitionNodes: nodes }));
        expect(
          cuts.flatMap((f) => shapeProblems(f, nodes)),
          `seed ${seed}`,
        ).toEqual([]);
      }
    }
  });

  it('at most one partition in force at a time, each healed before the run ends', () => {
    for (const seed of [1, 2, 3, 42, 7_777]) {
      const cuts = partitionsOf(planFaults({ ...shape, seed })).sort((a, b) => a.atMs - b.atMs);
      expect(cuts.length).toBeGreaterThan(5);
      for (let i = 1; i < cuts.length; i++) expect(cuts[i]!.atMs, `seed ${seed}`).toBeGreaterThanOrEqual(cuts[i - 1]!.atMs + cuts[i - 1]!.forMs);
      for (const f of cuts) expect(f.atMs + f.forMs).toBeLessThanOrEqual(shape.seconds * 1_000);
    }
  });
});

describe('what a cut could have struck', () => {
  it('an instance cut from any server, either way; a Redis server cut from a Sentinel', () => {
    expect(cutsAnInstance(cut(['app-1'], ['redis']))).toBe(true);
    expect(cutsAnInstance(oneWay(['mysql'], ['app-0']))).toBe(true);
    expect(cutsAnInstance(cut(['redis'], ['redlock-0', 'mysql']))).toBe(false);
    expect(cutsRedisFromSentinel(oneWay(['sentinel-2'], ['redis-replica']))).toBe(true);
    expect(cutsRedisFromSentinel(cut(['redis'], ['app-0', 'redis-replica']))).toBe(false);
  });
});

describe('the checker on partitions', () => {
  const exact: ChaosStrategy = { name: 'sql-update', store: 'mysql', fenced: false, locks: false, mayOversellUnderPause: false, mayLoseInFailover: false };
  const lease: ChaosStrategy = { name: 'redlock', store: 'mysql', fenced: false, locks: true, mayOversellUnderPause: true, mayLoseInFailover: false };
  const onRedis: ChaosStrategy = { name: 'redis-lua-decr', store: 'redis', fenced: false, locks: false, mayOversellUnderPause: false, mayLoseInFailover: true };
  const ok: Outcome = { kind: 'answer', status: 200 };
  const req = (id: string, s: ChaosStrategy, atMs: number): Request => ({
    id,
    via: 'nginx',
    role: 'load',
    outcome: ok,
    startedAt: 0,
    ms: 1,
    strategy: s.name,
    store: s.store,
    at: atMs,
    end: atMs + 1,
  });
  const partition = (grudge: Grudge, injectedMs: number, healedMs: number): FaultEvent => ({
    kind: 'partition-halves',
    target: NETWORK_TARGET,
    injectedMs,
    healedMs,
    partition: { grudge, text: describeGrudge(grudge), healMs: healedMs },
  });
  /** Two turns; the first sells 2 and deducts 1 (an oversell of one), the second is exact. */
  const oversoldFirstTurn = (s: ChaosStrategy, faults: FaultEvent[], replicated = false): ChaosHistory => ({
    seed: 1,
    strategies: [s],
    requests: [req('c.1', s, 1_000), req('c.2', s, 1_100), req('c.3', s, 6_000)],
    slices: [
      { strategy: s.name, store: s.store, startMs: 0, endMs: 5_000, leftBefore: 10, leftAfter: 9, kind: 'load' },
      { strategy: s.name, store: s.store, startMs: 5_500, endMs: 9_000, leftBefore: 9, leftAfter: 8, kind: 'load' },
    ],
    faults,
    sales: { 'c.1': 1, 'c.2': 1, 'c.3': 1 },
    lastHealMs: 9_000,
    recoveryMs: { [s.name]: 300 },
    recoveryBoundMs: 30_000,
    leftovers: [],
    crashes: [],
    idPrefix: 'c.',
    replicated,
    hosts: true,
  });
  const verdict = (h: ChaosHistory) => {
    const v = checkHistory(h);
    return { ...v.strategies[0]!, ok: v.ok };
  };
  const holderCut = cut(['app-0'], ['redis', 'redlock-0', 'redlock-1', 'redlock-2']);

  it("a lease lock's oversell is reported in the turn a cut struck an instance, and fails in any other turn", () => {
    expect(verdict(oversoldFirstTurn(lease, [partition(holderCut, 500, 2_000)]))).toMatchObject({
      oversold: 1,
      pausedDuringItsSlices: true,
      asCatalogSays: true,
      ok: true,
    });
    expect(verdict(oversoldFirstTurn(lease, [partition(holderCut, 6_000, 7_000)]))).toMatchObject({ oversold: 1, asCatalogSays: false, ok: false });
    // a cut that parts no instance from anything could not have struck a holder
    expect(verdict(oversoldFirstTurn(lease, [partition(cut(['redis'], ['mysql']), 500, 2_000)]))).toMatchObject({
      oversold: 1,
      pausedDuringItsSlices: false,
      asCatalogSays: false,
      ok: false,
    });
  });

  it("an exact strategy's oversell fails whatever the cut, and a double sale is never excused", () => {
    expect(verdict(oversoldFirstTurn(exact, [partition(holderCut, 500, 2_000)]))).toMatchObject({ oversold: 1, asCatalogSays: false, ok: false });
    const twice = oversoldFirstTurn(lease, [partition(holderCut, 500, 2_000)]);
    twice.sales['c.1'] = 2;
    twice.slices[0]!.leftAfter = 8;
    expect(verdict(twice)).toMatchObject({ double: ['c.1'], asCatalogSays: false, ok: false });
  });

  it('on the replicated topology, what a failover loses is reported only in a turn a cut parted a Redis server from a Sentinel', () => {
    const split = cut(['redis', 'app-0'], ['sentinel-0', 'sentinel-1', 'sentinel-2', 'redis-replica', 'app-1', 'app-2']);
    expect(verdict(oversoldFirstTurn(onRedis, [partition(split, 500, 2_000)], true))).toMatchObject({
      oversold: 1,
      failoverDuringItsSlices: true,
      asCatalogSays: true,
      ok: true,
    });
    // the single topology has no Sentinel to fail over
    expect(verdict(oversoldFirstTurn(onRedis, [partition(split, 500, 2_000)], false))).toMatchObject({ asCatalogSays: false, ok: false });
    expect(verdict(oversoldFirstTurn(onRedis, [partition(cut(['app-0'], ['mysql']), 500, 2_000)], true))).toMatchObject({ asCatalogSays: false, ok: false });
    expect(verdict(oversoldFirstTurn(onRedis, [partition(split, 6_000, 7_000)], true))).toMatchObject({ asCatalogSays: false, ok: false });
  });
});

describe('the network between turns', () => {
  it('one cut at a time; quiet once every earlier cut healed and as long again and the slack passed', async () => {
    const net = new ChaosNetwork();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = net.exclusive(async () => {
      order.push('first cut');
      await new Promise<void>((r) => (releaseFirst = r));
      order.push('first healed');
    });
    const second = net.exclusive(async () => void order.push('second cut'));
    await Promise.resolve();
    expect(order).toEqual(['first cut']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first cut', 'first healed', 'second cut']);

    const c = net.cutMade(1_000, cut(['mysql'], ['app-0']));
    expect(net.inForce()).toBe(true);
    expect(net.quietFor(500, 1_500)).toBe(true); // a cut made after the turn's answers is no concern of it
    expect(net.quietFor(2_000, 60_000)).toBe(false); // in force
    net.healed(c, 4_000);
    expect(net.inForce()).toBe(false);
    expect(net.quietFor(2_000, 4_000 + 3_000 + QUIET_SLACK_MS - 1)).toBe(false);
    expect(net.quietFor(2_000, 4_000 + 3_000 + QUIET_SLACK_MS)).toBe(true);
    // only the cuts that could hold up the turn's writes count
    net.cutMade(5_000, cut(['redis'], ['app-0']));
    expect(net.quietFor(6_000, 60_000, (g) => holdsUpWritesTo(g, 'mysql'))).toBe(true);
    expect(net.quietFor(6_000, 60_000, (g) => holdsUpWritesTo(g, 'redis'))).toBe(false);
  });

  it("a store's writes are held up only where its server drops what an instance sends", () => {
    expect(holdsUpWritesTo(oneWay(['app-1'], ['mysql']), 'mysql')).toBe(true);
    expect(holdsUpWritesTo(oneWay(['mysql'], ['app-1']), 'mysql')).toBe(false); // the replies were lost, the writes applied
    expect(holdsUpWritesTo(cut(['app-0'], ['redis-replica']), 'redis')).toBe(true);
    expect(holdsUpWritesTo(cut(['app-0'], ['redis']), 'mysql')).toBe(false);
    expect(holdsUpWritesTo(cut(['mysql'], ['redis']), 'mysql')).toBe(false);
  });
});

describe('the report', () => {
  it('names the topology and lists each cut with its grudge and the time its links healed', () => {
    expect([topologyOf({}), topologyOf({ replicated: true }), topologyOf({ hosts: true }), topologyOf({ hosts: true, replicated: true })]).toEqual([
      'single',
      'replicated',
      'hosts',
      'hosts,replicated',
    ]);
    const grudge = cut(['app-0'], ['redis']);
    const f: FaultEvent = {
      kind: 'partition-isolate',
      target: NETWORK_TARGET,
      injectedMs: 1_000,
      healedMs: 9_500,
      partition: { grudge, text: describeGrudge(grudge), healMs: 4_000 },
    };
    expect(faultLine(f)).toBe('1.0–9.5 s partition-isolate network (app-0 drops redis; redis drops app-0; links healed at 4.0 s)');
    expect(faultLine({ ...f, healedMs: 4_000 })).toBe('1.0–4.0 s partition-isolate network (app-0 drops redis; redis drops app-0)');
  });
});

describe('the strategies a chaos run with cuts judges', () => {
  const declared = (name: string, holderCrash: 'never' | 'after ttlMs') =>
    [name, { name, family: 'redis', expected: { threeInstances: 'exact', faults: { holderCrash, holderPause: 'oversells' } } }] as const;
  const catalog = new Map([declared('redis-setnx', 'never'), declared('redis-setnx-expire', 'after ttlMs'), declared('redis-owned', 'after ttlMs')]);
  const names = (linksCut: boolean) => chaosStrategies(catalog, undefined, { linksCut }).map((s) => s.name);

  it('leaves out a lock a cut between its two commands keeps for good, where links are cut, unless named', () => {
    expect(names(false)).toEqual(['redis-setnx-expire', 'redis-owned']);
    expect(names(true)).toEqual(['redis-owned']);
    expect(chaosStrategies(catalog, ['redis-setnx-expire'], { linksCut: true }).map((s) => s.name)).toEqual(['redis-setnx-expire']);
  });
});
