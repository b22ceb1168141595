// The hosts topology's private subnet: a /24 out of 198.18.0.0/15 (RFC 2544, set aside for
// benchmark networks and never routed), chosen so that it overlaps none of the machine's own
// addresses or routes (the default route aside: it covers everything and leads nowhere of ours).

/** An IPv4 address as a 32-bit unsigned number. */
export function ipv4ToNumber(address: string): number {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`not an IPv4 address: ${address}`);
  return (((parts[0] as number) << 24) | ((parts[1] as number) << 16) | ((parts[2] as number) << 8) | (parts[3] as number)) >>> 0;
}

export function numberToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export interface Cidr {
  base: number;
  prefix: number;
}

export function parseCidr(text: string): Cidr {
  const [address = '', prefixText] = text.split('/');
  const prefix = prefixText === undefined ? 32 : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) throw new Error(`not an IPv4 prefix: ${text}`);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (ipv4ToNumber(address) & mask) >>> 0, prefix };
}

function lastOf(c: Cidr): number {
  return c.base + 2 ** (32 - c.prefix) - 1;
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  return a.base <= lastOf(b) && b.base <= lastOf(a);
}

/** RFC 2544's benchmark range: 512 /24s, none of them routed on the internet. */
export const BENCHMARK_RANGE = parseCidr('198.18.0.0/15');

/**
 * The /24 of the benchmark range at `start` (any integer; taken modulo 512) or the next one after it
 * that overlaps nothing in `taken`; undefined when all 512 do.
 */
export function pickSubnet(taken: readonly string[], start: number): string | undefined {
  const used = taken.map(parseCidr).filter((c) => c.prefix > 0); // a default route is no address of ours
  const count = 2 ** (24 - BENCHMARK_RANGE.prefix);
  for (let k = 0; k < count; k++) {
    const index = (((start + k) % count) + count) % count;
    const candidate: Cidr = { base: BENCHMARK_RANGE.base + index * 256, prefix: 24 };
    if (!used.some((u) => overlaps(u, candidate))) return `${numberToIpv4(candidate.base)}/24`;
  }
  return undefined;
}

/** The address `host` (1..254) of a /24 given as "a.b.c.0/24". */
export function hostAddress(subnet: string, host: number): string {
  if (!Number.isInteger(host) || host < 1 || host > 254) throw new Error(`host number ${host} is outside 1..254`);
  return numberToIpv4(parseCidr(subnet).base + host);
}
