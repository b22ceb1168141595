// The two topologies a bench run measures: one instance, and three behind nginx.

export type Topology = 'one' | 'three';
export const TOPOLOGIES: readonly Topology[] = ['one', 'three'];
