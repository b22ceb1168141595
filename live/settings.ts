// The page's requests, checked: every refusal names the field at fault.
import { z } from 'zod';
import { CUT_FROM, PAUSE_POINTS, type RaceSettings } from './shared/types.js';

/** The largest round trip a race may ask of the links: enough to see, small enough to end in seconds. */
export const MAX_RTT_MS = 50;
const MAX_RTT_TEXT = `a round trip in ms, from 0 to ${MAX_RTT_MS}`;

export interface Bounds {
  maxRequests: number;
  strategies: readonly string[];
}

export function raceSchema(b: Bounds) {
  return z
    .object({
      strategy: z.string().refine((s) => b.strategies.includes(s), 'unknown strategy'),
      units: z.number().int().min(1).max(100_000),
      requests: z.number().int().min(1).max(b.maxRequests),
      connections: z.number().int().min(1).max(500),
      workMs: z.number().int().min(0).max(5_000),
      ttlMs: z.number().int().min(1).max(60_000),
      fenced: z.boolean(),
      via: z.enum(['one', 'three']),
      freezeHolder: z
        .object({ point: z.enum(PAUSE_POINTS), ms: z.number().int().min(0).max(30_000) })
        .strict()
        .optional(),
      cutHolder: z
        .object({ from: z.enum(CUT_FROM), workMs: z.number().int().min(0).max(10_000), ms: z.number().int().min(0).max(30_000) })
        .strict()
        .optional(),
      rttMs: z.number({ message: MAX_RTT_TEXT }).min(0, MAX_RTT_TEXT).max(MAX_RTT_MS, MAX_RTT_TEXT).optional(),
    })
    .strict()
    .refine((s) => !(s.freezeHolder && s.cutHolder), { message: 'freezeHolder and cutHolder both stop the first holder: choose one', path: ['cutHolder'] });
}

export const faultSchema = z
  .object({
    action: z.enum(['freeze', 'kill', 'heal', 'kill-redlock', 'kill-zookeeper', 'partition', 'heal-partitions', 'heal-all']),
    /** an instance's name (app-PORT) for freeze, kill, heal and partition; a RedLock master's index for kill-redlock */
    target: z.string().max(40).optional(),
    /** partition: the lock service the instance is cut from */
    from: z.enum(CUT_FROM).optional(),
    ms: z.number().int().min(0).max(30_000).default(10_000),
  })
  .strict();

export type FaultRequest = z.infer<typeof faultSchema>;

/** A refusal to send back: status, error code, and the field it names. */
export class InputError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export function parseWith<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const unknownKey = issue?.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const field = unknownKey ?? (issue?.path.join('.') || 'body');
  throw new InputError(400, 'bad_request', `${field}: ${issue?.message ?? 'invalid'}`, field);
}

export function parseRace(body: unknown, b: Bounds): RaceSettings {
  return parseWith(raceSchema(b), body) as RaceSettings;
}
