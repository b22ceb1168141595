// One GET /check/lock on a keep-alive agent, and what its answer says: status, error, instance,
// and the hold its Server-Timing header describes.
import http from 'node:http';

export interface Answer {
  /** 0: no answer (connection refused, reset, aborted) */
  status: number;
  error?: string;
  instance?: string;
  timing?: { grantedAt: number; holdMs: number; token?: string };
}

/** Parses `wait;dur=1.2, hold;dur=50, granted;desc="123.4", token;desc="7"`. */
export function parseServerTiming(header: string | undefined): Answer['timing'] {
  if (!header) return undefined;
  const entries = new Map<string, { dur?: number; desc?: string }>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().split(';');
    const e: { dur?: number; desc?: string } = {};
    for (const p of params) {
      const [k, v = ''] = p.trim().split('=');
      if (k === 'dur') e.dur = Number(v);
      if (k === 'desc') e.desc = v.replace(/^"|"$/g, '');
    }
    entries.set(name.trim(), e);
  }
  const granted = Number(entries.get('granted')?.desc);
  const hold = entries.get('hold')?.dur;
  if (!Number.isFinite(granted) || hold === undefined) return undefined;
  const token = entries.get('token')?.desc;
  return { grantedAt: granted, holdMs: hold, ...(token !== undefined && { token }) };
}

export function getAnswer(url: string, agent: http.Agent, signal: AbortSignal): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => resolve({ status: 0 }));
      res.on('end', () => {
        let body: { error?: unknown; instance?: unknown } = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
        } catch {
          // not JSON (nginx's own 502 page): the status says enough
        }
        const timing = parseServerTiming(res.headers['server-timing'] as string | undefined);
        resolve({
          status: res.statusCode ?? 0,
          ...(typeof body.error === 'string' && { error: body.error }),
          ...(typeof body.instance === 'string' && { instance: body.instance }),
          ...(timing && { timing }),
        });
      });
    });
    req.on('error', () => resolve({ status: 0 }));
  });
}
