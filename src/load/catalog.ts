// The strategies to bench, as the service under test lists them (GET /strategies), in catalog order.
import { z } from 'zod';

const outcome = z.enum(['exact', 'oversells']);
const entry = z.object({
  name: z.string(),
  family: z.string(),
  description: z.string(),
  expected: z.object({ oneInstance: outcome, threeInstances: outcome, workOverTtl: outcome.optional(), note: z.string().optional() }),
  stores: z.tuple([z.enum(['mysql', 'redis', 'postgres'])], z.enum(['mysql', 'redis', 'postgres'])),
});
const listing = z.object({ strategies: z.array(entry) });

export type CatalogEntry = z.infer<typeof entry>;

export async function fetchCatalog(base: string): Promise<CatalogEntry[]> {
  const res = await fetch(`${base}/strategies`, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET ${base}/strategies answered ${res.status}`);
  return listing.parse(await res.json()).strategies;
}

/** The chosen subset, kept in catalog order (the course's order of families); unknown names fail. */
export function selectStrategies(catalog: CatalogEntry[], wanted: string[] | undefined, families?: readonly string[]): CatalogEntry[] {
  if (families) {
    const knownFamilies = new Set(catalog.map((s) => s.family));
    const unknownFamilies = families.filter((f) => !knownFamilies.has(f));
    if (unknownFamilies.length > 0) throw new Error(`unknown families: ${unknownFamilies.join(', ')} (known: ${[...knownFamilies].join(', ')})`);
    // Named strategies join the families' (the bench adds its reference so), in catalog order.
    const named = new Set(selectStrategies(catalog, wanted ?? []).map((s) => s.name));
    return catalog.filter((s) => families.includes(s.family) || named.has(s.name));
  }
  if (!wanted) return catalog;
  const known = new Set(catalog.map((s) => s.name));
  const unknown = wanted.filter((w) => !known.has(w));
  if (unknown.length > 0) throw new Error(`unknown strategies: ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  return catalog.filter((s) => wanted.includes(s.name));
}
