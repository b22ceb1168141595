// Applies a grudge to a hosts layout: inside the namespace of each node that holds one, its
// filter table drops what arrives from the nodes it will not hear (iptables INPUT -s ADDR -j DROP).
// Every change replaces the whole table at once (iptables-restore), and healing empties it.
// The machine itself is no node: its tools still reach every server while the servers are cut.
import fs from 'node:fs';
import { runCommand } from './command.js';
import { describeGrudge, type Grudge } from './grudge.js';
import { hostOf, type HostsLayout } from './hosts.js';

/** One line of `<dir>/partitions.jsonl`: when a grudge took effect (an empty one is a heal). */
export interface PartitionRecord {
  at: string;
  /** ms since the epoch */
  t: number;
  grudge: Grudge;
  text: string;
}

/** The rule that drops what `address` sends, as iptables-restore takes it and iptables -S prints it. */
const dropRule = (address: string) => `-A INPUT -s ${address}/32 -j DROP`;

function filterTable(addresses: readonly string[]): string {
  return ['*filter', ':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ...addresses.map(dropRule), 'COMMIT', ''].join('\n');
}

/** Checks that every node the grudge names is a server of the layout. */
export function checkGrudge(layout: HostsLayout, grudge: Grudge): void {
  const unknown = [...Object.keys(grudge), ...Object.values(grudge).flat()].filter((n) => !hostOf(layout, n));
  if (unknown.length > 0) throw new Error(`no such server: ${[...new Set(unknown)].join(', ')} (servers: ${layout.hosts.map((h) => h.name).join(', ')})`);
}

/** `iptables -S` of a filter table that filterTable(addresses) wrote: what a namespace prints when it holds just that. */
function printedTable(addresses: readonly string[]): string {
  return ['-P INPUT ACCEPT', '-P FORWARD ACCEPT', '-P OUTPUT ACCEPT', ...addresses.map(dropRule)].join('\n');
}

/** Each namespace's filter table as `iptables -S` prints it, trimmed. */
async function printedTables(layout: HostsLayout): Promise<Map<string, string>> {
  const printed = await Promise.all(
    layout.hosts.map(async (h) => [h.namespace, (await runCommand('ip', ['netns', 'exec', h.namespace, 'iptables', '-S'])).stdout.trim()] as const),
  );
  return new Map(printed);
}

/**
 * Makes `grudge` the partition in force (replacing any earlier one; an empty grudge heals), and
 * appends it to `recordFile` when given, with the time it took effect: once every namespace holds
 * its rules. Only the namespaces whose table changes are written, read back first: each write is a
 * process or two, and on a loaded 2-core machine writing all twenty took seconds, so the links a
 * grudge cuts went down well before the time it is measured from.
 */
export async function applyGrudge(layout: HostsLayout, grudge: Grudge, recordFile?: string): Promise<PartitionRecord> {
  checkGrudge(layout, grudge);
  const inForce = await printedTables(layout);
  await Promise.all(
    layout.hosts.map((h) => {
      const dropped = (grudge[h.name] ?? []).map((n) => hostOf(layout, n)?.address as string);
      if (inForce.get(h.namespace) === printedTable(dropped)) return undefined;
      return runCommand('ip', ['netns', 'exec', h.namespace, 'iptables-restore'], filterTable(dropped));
    }),
  );
  const t = Date.now();
  const record: PartitionRecord = { at: new Date(t).toISOString(), t, grudge, text: describeGrudge(grudge) };
  if (recordFile) fs.appendFileSync(recordFile, JSON.stringify(record) + '\n');
  return record;
}

/** Heals every link of the layout. */
export function healAll(layout: HostsLayout, recordFile?: string): Promise<PartitionRecord> {
  return applyGrudge(layout, {}, recordFile);
}

/** The grudge in force, read back from the namespaces' rules (what `status` shows). */
export async function grudgeInForce(layout: HostsLayout): Promise<Grudge> {
  const grudge: Grudge = {};
  await Promise.all(
    layout.hosts.map(async (h) => {
      const rules = (await runCommand('ip', ['netns', 'exec', h.namespace, 'iptables', '-S', 'INPUT'])).stdout;
      const from = [...rules.matchAll(/-s (\d+\.\d+\.\d+\.\d+)\/32 -j DROP/g)].map(
        (m) => layout.hosts.find((x) => x.address === m[1])?.name ?? (m[1] as string),
      );
      if (from.length > 0) grudge[h.name] = from.sort();
    }),
  );
  return grudge;
}
