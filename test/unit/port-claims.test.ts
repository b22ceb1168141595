// Port claims (src/cluster/ports.ts): a port picked by one process is not picked by another within
// the claim's ten minutes, and an old claim gives way.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimPort } from '../../src/cluster/ports.js';

// Above every range FREE_PORTS draws from, so no real pick meets these.
const PORT = 65_000 + (process.pid % 500);
const file = path.join(os.tmpdir(), 'stocklab-port-claims', String(PORT));

describe('claimPort', () => {
  it('claims a port once; a second claim within ten minutes is refused; an old claim gives way', () => {
    fs.rmSync(file, { force: true });
    expect(claimPort(PORT)).toBe(true);
    expect(claimPort(PORT)).toBe(false);
    const old = new Date(Date.now() - 11 * 60_000);
    fs.utimesSync(file, old, old);
    expect(claimPort(PORT)).toBe(true);
    fs.rmSync(file, { force: true });
  });
});
