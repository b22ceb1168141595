// GET /strategies declares, per lock strategy, what each fault does (`expected.faults`), whether
// it issues fencing tokens (`fencing`) and what the lab's cases need beyond that (`faultLab`). The
// lab builds its cases from it (locks.ts) and measures the same things: this compares the two, so
// a declaration the measurements contradict is named in the report instead of read as documentation.
import { z } from 'zod';
import { httpGet } from '../src/cluster/probes.js';
import type { FaultRow } from './row.js';

const entrySchema = z.object({
  name: z.string(),
  family: z.string().optional(),
  stores: z.array(z.enum(['mysql', 'redis', 'postgres'])).optional(),
  fencing: z.string().optional(),
  faultLab: z.object({ wholeSecondLeases: z.literal(true).optional(), lostReplyCase: z.literal(true).optional() }).optional(),
  expected: z.object({
    threeInstances: z.string().optional(),
    faults: z
      .object({ holderCrash: z.string(), holderPause: z.string(), holderPauseFenced: z.string().optional(), lostReply: z.string().optional() })
      .optional(),
  }),
});
const strategiesSchema = z.object({ strategies: z.array(z.unknown()) });

export type Declared = z.infer<typeof entrySchema>;

/** The entries of GET /strategies that parse (a strategy without `expected.faults` simply declares none). */
export async function fetchDeclared(base: string): Promise<Map<string, Declared>> {
  const reply = await httpGet(`${base}/strategies`, 10_000);
  if (reply?.status !== 200) throw new Error(`GET ${base}/strategies: ${reply ? reply.status : 'no answer'}`);
  return parseDeclared(reply.body);
}

/** GET /strategies' body, by name, in the catalog's order. */
export function parseDeclared(body: string): Map<string, Declared> {
  const { strategies } = strategiesSchema.parse(JSON.parse(body));
  const out = new Map<string, Declared>();
  for (const raw of strategies) {
    const parsed = entrySchema.safeParse(raw);
    if (parsed.success) out.set(parsed.data.name, parsed.data);
  }
  return out;
}

/** holder-crash in the catalog's words: 'never', 'after ttlMs', 'after the session timeout' or 'at once, with its database session'. */
function crashOutcome(r: FaultRow): string | undefined {
  if (r.recoverMs === null) return 'never';
  if (!r.asExpected) return undefined; // no figure can be trusted to name the mechanism
  if (r.expected.includes('database session')) return 'at once, with its database session';
  return r.expected.includes('session') ? 'after the session timeout' : 'after ttlMs';
}

/** holder-pause in the catalog's words: 'oversells' or 'exact'; undefined when the case did not run to the end. */
function pauseOutcome(r: FaultRow): string | undefined {
  if (r.byRole.holder?.['400 fenced']) return 'refuses fenced=1';
  if (!r.byRole.holder || r.details.some((d) => d.startsWith('case failed'))) return undefined;
  return r.oversold > 0 ? 'oversells' : 'exact';
}

/**
 * lost-reply in the catalog's words: 'released by its owner' when the next instance got the lock
 * within its wait (the lease is far longer, so only the owner's release can have freed it);
 * undefined when the lost acquire was never applied (no fault to judge) or the case did not finish.
 */
function lostReplyOutcome(r: FaultRow): string | undefined {
  if (r.facts.acquireApplied !== true) return undefined;
  if (r.recoverMs !== null) return 'released by its owner';
  return r.byRole.next?.['503 lock_timeout'] ? 'not released within waitMs' : undefined;
}

/** One line per declaration the measurements contradict; rows the catalog says nothing about are skipped. */
export function catalogMismatches(rows: readonly FaultRow[], declared: ReadonlyMap<string, Declared>): string[] {
  const out: string[] = [];
  const say = (r: FaultRow, field: string, claims: string | undefined, measured: string | undefined) => {
    if (measured !== undefined && claims !== measured)
      out.push(
        `${r.strategy}: /strategies declares ${field} ${claims === undefined ? '(none)' : `'${claims}'`}, the lab measured '${measured}' (${r.scenario} · ${r.variant} · ${r.store})`,
      );
  };
  for (const r of rows) {
    const d = declared.get(r.strategy);
    const faults = d?.expected.faults;
    if (!d || !faults) continue;
    if (r.scenario === 'holder-crash') say(r, 'holderCrash', faults.holderCrash, crashOutcome(r));
    if (r.scenario === 'lost-reply') say(r, 'lostReply', faults.lostReply, lostReplyOutcome(r));
    if (r.scenario === 'holder-pause' && r.variant === 'unfenced') say(r, 'holderPause', faults.holderPause, pauseOutcome(r));
    if (r.scenario === 'holder-pause' && r.variant === 'fenced') {
      const measured = pauseOutcome(r);
      // a lock that refuses fenced=1 must declare neither a fenced outcome nor a token source
      if (measured === 'refuses fenced=1') {
        if (faults.holderPauseFenced !== undefined || d.fencing !== undefined)
          say(r, 'holderPauseFenced', faults.holderPauseFenced ?? `fencing ${d.fencing}`, measured);
      } else say(r, 'holderPauseFenced', faults.holderPauseFenced, measured);
    }
  }
  return out;
}
