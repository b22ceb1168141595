// A pause runc gave up on ("unable to freeze", container thawed again) is tried again; any other
// refusal is not. The engine's side is a unix-socket server answering as Docker did in CI.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DockerEngine, isFreezeGivenUp } from '../../live/docker-engine.js';

const servers: http.Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function engineAnswering(answers: { status: number; message?: string }[]): Promise<{ engine: DockerEngine; calls: () => number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-pause-'));
  dirs.push(dir);
  const socketPath = path.join(dir, 'docker.sock');
  let calls = 0;
  const server = http.createServer((_req, res) => {
    const answer = answers[Math.min(calls, answers.length - 1)]!;
    calls++;
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.message ? JSON.stringify({ message: answer.message }) : '');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(socketPath, r));
  return { engine: new DockerEngine(socketPath), calls: () => calls };
}

const GAVE_UP = { status: 500, message: 'Cannot pause container abc: OCI runtime pause failed: unable to freeze: unknown' };

describe('DockerEngine.pause', () => {
  it('tries again when runc gave up freezing, and succeeds', async () => {
    const { engine, calls } = await engineAnswering([GAVE_UP, GAVE_UP, { status: 204 }]);
    await engine.pause('abc');
    expect(calls()).toBe(3);
  });

  it('gives up after its attempts with runc’s error', async () => {
    const { engine, calls } = await engineAnswering([GAVE_UP]);
    const err = await engine.pause('abc', 3).catch((e: unknown) => e);
    expect(isFreezeGivenUp(err)).toBe(true);
    expect(calls()).toBe(3);
  });

  it('does not retry any other refusal', async () => {
    const { engine, calls } = await engineAnswering([{ status: 409, message: 'Container abc is not running' }]);
    await expect(engine.pause('abc')).rejects.toThrow(/409 Container abc is not running/);
    expect(calls()).toBe(1);
  });
});
