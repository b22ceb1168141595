// The Docker Engine API over its unix socket (node:http with socketPath): the few calls the live
// lab's compose fault driver makes (list, inspect, pause/unpause, kill/start), no client library.
import http from 'node:http';

export const DOCKER_SOCKET = '/var/run/docker.sock';
/** The API version every call names: Docker 20.10's (1.41), which every newer engine also serves. */
const API = '/v1.41';

export interface ContainerInfo {
  Id: string;
  Config: { Env: string[] | null; Labels: Record<string, string> | null };
  State: { Status: string; Running: boolean; Paused: boolean; Health?: { Status: string } };
}

/** How many times a pause runc gave up on is tried, and the wait before the n-th retry (n × this). */
const PAUSE_ATTEMPTS = 5;
const PAUSE_RETRY_MS = 100;

/** runc's answer when the freezer did not reach FROZEN in its tries; it has thawed the container again. */
export function isFreezeGivenUp(err: unknown): boolean {
  return err instanceof DockerError && err.status === 500 && /unable to freeze/.test(err.message);
}

export class DockerError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class DockerEngine {
  constructor(private readonly socketPath = DOCKER_SOCKET) {}

  private request(method: 'GET' | 'POST', path: string, timeoutMs = 30_000): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request({ socketPath: this.socketPath, method, path: `${API}${path}`, headers: { host: 'docker' }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`docker ${method} ${path}: no answer within ${timeoutMs} ms`)));
      req.on('error', (err) => reject(new Error(`docker ${method} ${path}: ${err.message} (is ${this.socketPath} mounted?)`)));
      req.end();
    });
  }

  private async call(method: 'GET' | 'POST', path: string): Promise<string> {
    const { status, body } = await this.request(method, path);
    // 304: already in that state (start of a running container, …)
    if (status >= 200 && status < 300) return body;
    if (status === 304) return '';
    const message = (() => {
      try {
        return (JSON.parse(body) as { message?: string }).message ?? body;
      } catch {
        return body;
      }
    })();
    throw new DockerError(status, `docker ${method} ${path}: ${status} ${message}`);
  }

  async inspect(id: string): Promise<ContainerInfo> {
    return JSON.parse(await this.call('GET', `/containers/${encodeURIComponent(id)}/json`)) as ContainerInfo;
  }

  /** The ids of every container (running or not) carrying all of these labels. */
  async containersWith(labels: Record<string, string>): Promise<string[]> {
    const filters = JSON.stringify({ label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) });
    const list = JSON.parse(await this.call('GET', `/containers/json?all=1&filters=${encodeURIComponent(filters)}`)) as { Id: string }[];
    return list.map((c) => c.Id);
  }

  /**
   * pause and unpause: the cgroup freezer, every process of the container stopped as by SIGSTOP.
   * On cgroup v1, runc gives up after a bounded number of tries while a task is still FREEZING (a busy
   * machine, a task in the middle of a syscall) and thaws the container again: "unable to freeze".
   * Nothing was frozen, so the pause is tried again after a short wait.
   */
  async pause(id: string, attempts = PAUSE_ATTEMPTS): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.call('POST', `/containers/${encodeURIComponent(id)}/pause`);
        return;
      } catch (err) {
        if (attempt >= attempts || !isFreezeGivenUp(err)) throw err;
        await new Promise((r) => setTimeout(r, PAUSE_RETRY_MS * attempt));
      }
    }
  }

  async unpause(id: string): Promise<void> {
    await this.call('POST', `/containers/${encodeURIComponent(id)}/unpause`);
  }

  /** SIGKILL: a crash. Docker counts it as a stop by hand, so no restart policy brings it back. */
  async kill(id: string): Promise<void> {
    await this.call('POST', `/containers/${encodeURIComponent(id)}/kill?signal=SIGKILL`);
  }

  async start(id: string): Promise<void> {
    await this.call('POST', `/containers/${encodeURIComponent(id)}/start`);
  }
}
