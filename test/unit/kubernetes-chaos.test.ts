// deploy/kubernetes/chaos/: each experiment against the fields and values Chaos Mesh's CRDs allow,
// and against the lab it comes from (its scenario exists, its pods do). The schema below is written
// from chaos-mesh's manifests/crd.yaml (chaos-mesh.org/v1alpha1, NetworkChaos and PodChaos, the
// repository at commit 608b61e7, 2026-08-07, after v2.8.3): the fields used here, their types,
// enums, patterns and required lists. Kubernetes drops a field a CRD does not declare, silently, so
// an unknown field fails here. Pure: builds objects, starts nothing.
import { describe, expect, it } from 'vitest';
import { chaosFiles, HAND_LABELS, sidesOf, podName, SCENARIO_ANNOTATION, type Experiment } from '../../faults/kubernetes/chaos.js';
import { SCENARIOS } from '../../faults/scenarios/index.js';
import { topologyObjects } from '../../src/kubernetes/manifests.js';
import { Deployment, StatefulSet } from '../../src/kubernetes/objects.js';
import { complete, isolate } from '../../src/net/grudge.js';

interface Schema {
  type: 'object' | 'string' | 'integer' | 'array';
  enum?: readonly string[];
  pattern?: RegExp;
  required?: readonly string[];
  properties?: Record<string, Schema>;
  /** A map's values (labelSelectors). */
  additionalProperties?: Schema;
  items?: Schema;
}

const MODES = ['one', 'all', 'fixed', 'fixed-percent', 'random-max-percent'] as const;
const DURATION = /^-?([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/;
const str: Schema = { type: 'string' };
const selector: Schema = {
  type: 'object',
  properties: {
    namespaces: { type: 'array', items: str },
    labelSelectors: { type: 'object', additionalProperties: str },
    expressionSelectors: {
      type: 'array',
      items: { type: 'object', required: ['key', 'operator'], properties: { key: str, operator: str, values: { type: 'array', items: str } } },
    },
    annotationSelectors: { type: 'object', additionalProperties: str },
    fieldSelectors: { type: 'object', additionalProperties: str },
    pods: { type: 'object', additionalProperties: { type: 'array', items: str } },
  },
};
const metadata: Schema = {
  type: 'object',
  required: ['name'],
  properties: { name: str, labels: { type: 'object', additionalProperties: str }, annotations: { type: 'object', additionalProperties: str } },
};
const kind = (name: string, spec: Schema): Schema => ({
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: { apiVersion: { type: 'string', enum: ['chaos-mesh.org/v1alpha1'] }, kind: { type: 'string', enum: [name] }, metadata, spec },
});

const CHAOS_MESH_SCHEMAS: Record<string, Schema> = {
  NetworkChaos: kind('NetworkChaos', {
    type: 'object',
    required: ['action', 'mode', 'selector'],
    properties: {
      action: { type: 'string', enum: ['netem', 'delay', 'loss', 'duplicate', 'corrupt', 'partition', 'bandwidth'] },
      mode: { type: 'string', enum: MODES },
      value: str,
      selector,
      direction: { type: 'string', enum: ['to', 'from', 'both'] },
      target: { type: 'object', required: ['mode', 'selector'], properties: { mode: { type: 'string', enum: MODES }, value: str, selector } },
      delay: {
        type: 'object',
        required: ['latency'],
        properties: {
          latency: { type: 'string', pattern: /^[0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h)$/ },
          jitter: { type: 'string', pattern: /^[0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h)$/ },
          correlation: str,
        },
      },
      duration: { type: 'string', pattern: DURATION },
    },
  }),
  PodChaos: kind('PodChaos', {
    type: 'object',
    required: ['action', 'mode', 'selector'],
    properties: {
      action: { type: 'string', enum: ['pod-kill', 'pod-failure', 'container-kill'] },
      mode: { type: 'string', enum: MODES },
      value: str,
      selector,
      containerNames: { type: 'array', items: str },
      gracePeriod: { type: 'integer' },
      duration: { type: 'string', pattern: DURATION },
    },
  }),
};

/** What of `value` the schema refuses, each as "path: why". */
function schemaProblems(value: unknown, schema: Schema, at = ''): string[] {
  const where = at || '.';
  if (schema.type === 'string') {
    if (typeof value !== 'string') return [`${where}: not a string`];
    if (schema.enum && !schema.enum.includes(value)) return [`${where}: "${value}" is not one of ${schema.enum.join(', ')}`];
    if (schema.pattern && !schema.pattern.test(value)) return [`${where}: "${value}" does not match ${schema.pattern}`];
    return [];
  }
  if (schema.type === 'integer') return Number.isInteger(value) ? [] : [`${where}: not an integer`];
  if (schema.type === 'array')
    return Array.isArray(value) ? value.flatMap((v, i) => schemaProblems(v, schema.items ?? str, `${at}[${i}]`)) : [`${where}: not a list`];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${where}: not an object`];
  const entries = Object.entries(value as Record<string, unknown>);
  const missing = (schema.required ?? []).filter((r) => !(r in value)).map((r) => `${at}.${r}: required`);
  return [
    ...missing,
    ...entries.flatMap(([k, v]) => {
      const field = schema.properties?.[k] ?? schema.additionalProperties;
      return field ? schemaProblems(v, field, `${at}.${k}`) : [`${at}.${k}: not a field of the CRD`];
    }),
  ];
}

const experiments: Experiment[] = chaosFiles().flatMap((f) => f.experiments);

describe('the Chaos Mesh experiments', () => {
  it("cover the issue's faults: a holder cut, RedLock 3|2, Sentinel split brain, a ZooKeeper leader cut off, 2 ms on every link, an instance killed", () => {
    expect(chaosFiles().map((f) => f.name)).toEqual(
      expect.arrayContaining([
        'holder-cut-from-redis',
        'holder-cut-from-zookeeper',
        'redlock-split-3-2',
        'redis-split-brain',
        'zk-leader-partition',
        'delay-2ms-rtt',
        'instance-kill',
      ]),
    );
  });

  it.each(experiments.map((e) => [e.metadata.name, e] as const))('%s fits its CRD', (_name, e) => {
    expect(schemaProblems(e, CHAOS_MESH_SCHEMAS[e.kind] as Schema)).toEqual([]);
  });

  it.each(experiments.map((e) => [e.metadata.name, e] as const))('%s names a scenario of the fault lab, or its round trip', (_name, e) => {
    const scenario = e.metadata.annotations[SCENARIO_ANNOTATION];
    expect([...SCENARIOS.map((s) => s.name), 'rtt']).toContain(scenario);
  });

  it('select pods the topology it needs runs', () => {
    for (const f of chaosFiles()) {
      const workloads = topologyObjects(f.overlay).filter((o): o is Deployment | StatefulSet => o instanceof Deployment || o instanceof StatefulSet);
      const podNames = workloads.flatMap((w) =>
        w instanceof StatefulSet ? Array.from({ length: w.spec?.replicas ?? 1 }, (_v, i) => `${w.metadata?.name}-${i}`) : [],
      );
      const labelSets = workloads.map((w) => w.spec?.template.metadata?.labels ?? {});
      for (const e of f.experiments) {
        const selectors = [e.spec.selector, ...('target' in e.spec && e.spec.target ? [e.spec.target.selector] : [])];
        for (const s of selectors) {
          // The holder's and the leader's labels are put on by hand when the experiment is applied (docs/kubernetes.md).
          const labels = Object.entries(s.labelSelectors ?? {}).filter(([k]) => !HAND_LABELS.includes(k));
          if (labels.length > 0)
            expect(
              labelSets.some((l) => labels.every(([k, v]) => l[k] === v)),
              `${e.metadata.name}: ${JSON.stringify(s)}`,
            ).toBe(true);
          for (const x of s.expressionSelectors ?? []) {
            if (HAND_LABELS.includes(x.key)) continue;
            for (const v of x.values ?? []) expect(podNames, e.metadata.name).toContain(v);
          }
        }
      }
    }
  });
});

describe('the schema check itself', () => {
  const partition = experiments.find((e) => e.kind === 'NetworkChaos') as Experiment;
  const broken = (change: (spec: Record<string, unknown>) => void) => {
    const copy = JSON.parse(JSON.stringify(partition)) as { spec: Record<string, unknown> };
    change(copy.spec);
    return schemaProblems(copy, CHAOS_MESH_SCHEMAS.NetworkChaos as Schema);
  };

  it('refuses an action, a mode or a direction Chaos Mesh lacks, a missing selector and an unknown field', () => {
    expect(broken((s) => (s.action = 'cut'))).toEqual(['.spec.action: "cut" is not one of netem, delay, loss, duplicate, corrupt, partition, bandwidth']);
    expect(broken((s) => (s.mode = 'any'))).toHaveLength(1);
    expect(broken((s) => (s.direction = 'both-ways'))).toHaveLength(1);
    expect(broken((s) => delete s.selector)).toEqual(['.spec.selector: required']);
    expect(broken((s) => (s.latency = '2ms'))).toEqual(['.spec.latency: not a field of the CRD']);
    expect(broken((s) => (s.delay = { latency: '2 ms' }))).toHaveLength(1);
  });
});

describe('the grudge to pods', () => {
  it('reads the two sides of a cut, and refuses a grudge that is not one', () => {
    expect(sidesOf(isolate(['zookeeper', 'zookeeper-1', 'zookeeper-2'], 'zookeeper'))).toEqual([['zookeeper'], ['zookeeper-1', 'zookeeper-2']]);
    expect(() => sidesOf(complete([['a'], ['b'], ['c']]))).toThrow();
    expect(['zookeeper', 'zookeeper-2', 'redlock-3', 'redis-replica'].map(podName)).toEqual(['zookeeper-0', 'zookeeper-2', 'redlock-3', 'redis-replica-0']);
  });
});
