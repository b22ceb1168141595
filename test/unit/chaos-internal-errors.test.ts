// The chaos run's reading of its instances' logs: each logged answer 500 counts, from any instance,
// and nothing else does (a 503 line, another server's log).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { internalErrorsIn } from '../../faults/chaos/internal-errors.js';

let dir = '';
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it("counts every instance's logged answers 500, and only those", () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-internal-errors-'));
  const line = (status: number, msg: string) => JSON.stringify({ level: status === 500 ? 50 : 20, method: 'GET', path: '/sales', status, msg });
  fs.writeFileSync(path.join(dir, 'app-8000.log'), [line(503, 'postgres_unavailable'), line(500, 'internal'), ''].join('\n'));
  fs.writeFileSync(path.join(dir, 'app-8100.log'), [line(500, 'internal'), line(200, 'ok')].join('\n'));
  fs.writeFileSync(path.join(dir, 'nginx.log'), line(500, 'not an instance'));
  const found = internalErrorsIn(dir);
  expect(found.count).toBe(2);
  expect(found.first).toContain('"status":500');
  fs.writeFileSync(path.join(dir, 'app-8000.log'), line(503, 'busy'));
  fs.writeFileSync(path.join(dir, 'app-8100.log'), '');
  expect(internalErrorsIn(dir)).toEqual({ count: 0 });
  expect(internalErrorsIn(path.join(dir, 'absent'))).toEqual({ count: 0 });
});
