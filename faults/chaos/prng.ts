// The seeded PRNG lives in src/random.ts (the partition shapes of src/net use it too).
export { seeded, type Random } from '../../src/random.js';
