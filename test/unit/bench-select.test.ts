import { describe, expect, it } from 'vitest';
import { selectStrategies, type CatalogEntry } from '../../src/load/catalog.js';
import { chosenStrategies, parseBenchArgs } from '../../bench/options.js';

const entry = (name: string, family: string): CatalogEntry => ({
  name,
  family,
  description: name,
  expected: { oneInstance: 'exact', threeInstances: 'exact' },
  stores: ['mysql'],
});
const catalog = [
  entry('none', 'baseline'),
  entry('mutex', 'baseline'),
  entry('zk-watch', 'zookeeper'),
  entry('etcd-lock', 'etcd'),
  entry('pg-update', 'postgres'),
  entry('pg-advisory-xact', 'postgres'),
];
const names = (list: CatalogEntry[]) => list.map((s) => s.name);

describe('--family', () => {
  it('runs every strategy of the named families, in catalog order', () => {
    const o = parseBenchArgs(['--family', 'postgres,etcd']);
    expect(o.families).toEqual(['postgres', 'etcd']);
    expect(names(selectStrategies(catalog, chosenStrategies(o), o.families))).toEqual(['etcd-lock', 'pg-update', 'pg-advisory-xact']);
  });

  it('keeps a named strategy beside the families (the reference the bench adds), in catalog order', () => {
    expect(names(selectStrategies(catalog, ['mutex'], ['etcd']))).toEqual(['mutex', 'etcd-lock']);
  });

  it('refuses a family the catalog does not have, naming the known ones', () => {
    expect(() => selectStrategies(catalog, undefined, ['consul'])).toThrow(/unknown families: consul \(known: baseline, zookeeper, etcd, postgres\)/);
  });

  it('goes apart from --strategies and --all', () => {
    expect(() => parseBenchArgs(['--family', 'etcd', '--all'])).toThrow(/--family goes apart/);
    expect(() => parseBenchArgs(['--family', 'etcd', '--strategies', 'none'])).toThrow(/--family goes apart/);
    expect(() => parseBenchArgs(['--family', ','])).toThrow(/--family needs at least one name/);
  });

  it('without it, the course line stays the default', () => {
    expect(chosenStrategies(parseBenchArgs([]))).toContain('zk-watch');
    expect(parseBenchArgs([]).families).toBeUndefined();
  });
});
