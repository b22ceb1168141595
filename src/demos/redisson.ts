// Redisson's primitives beyond the mutex (course §2.10). Filled in by issue 13.
import type { DemoFactory } from './demo.js';

export const redissonDemos: DemoFactory = async () => ({ name: 'redisson', routes: () => {} });
