// The only place that knows which demo groups exist.
import { curatorDemos } from './curator.js';
import type { DemoFactory } from './demo.js';
import { redissonDemos } from './redisson.js';

export const demoFactories: readonly DemoFactory[] = [redissonDemos, curatorDemos];
