// nginx-cut: nginx cut from one instance (the hosts topology) while a deduction is in flight on it.
// Sequenced, never raced: sales go through nginx; the next one stops its instance at
// pause=before-write (nginx picks the instance, the lab sees which); once nginx holds no idle
// kept-alive connection to it but the one in flight, nginx and that instance are cut both ways and
// the instance runs on. Its sale lands (it still reaches MySQL and Redis), its answer goes into the
// cut. Then N more sales through nginx, each answered within nginx's connect bound (read from the
// config the cluster renders). The request in flight gets no answer within the lab's own bound
// (nginx's, proxy_read_timeout, is 120 s), is never resent (a copy would stop another instance at
// the same hook), and GET /sales settles it as one sale.
import fs from 'node:fs';
import { unitsLeft } from '../../src/cluster/stores.js';
import { NGINX_TEMPLATE } from '../../src/cluster/nginx.js';
import { runCommand } from '../../src/net/command.js';
import { cut } from '../../src/net/grudge.js';
import { hostOf, type HostsLayout } from '../../src/net/hosts.js';
import { pollUntil } from '../../src/time.js';
import { runCase, type Verdict } from '../case.js';
import { instances, liveBase, releaseStopped, type Instance } from '../cluster-ops.js';
import { isOutcomeUnknown, outcomeKey, type Sent } from '../client.js';
import { answersText, FREEZE_TIMEOUT_MS, holderText } from '../holder.js';
import { labNetwork } from '../lab-network.js';
import { resume, waitAnyStopped } from '../process-state.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';
import { readSales } from '../service.js';

const SCENARIO = 'nginx-cut';
const STRATEGY = 'redis-owned';
/** Sales through nginx before the cut, one at a time. */
const BEFORE = 3;
/** The request in flight: it stops its instance holding the lock, so its lease outlasts the case. */
const IN_FLIGHT_PARAMS = { pause: 'before-write', ttlMs: 30_000 };
/** Every other request's lock wait. */
const SALE_PARAMS = { waitMs: 5_000 };
/**
 * The lab's own bound on the request in flight. nginx's is proxy_read_timeout (120 s in the
 * project's config): too long for the lab to wait out. Past the latest cut (keepalive_timeout + 3 s
 * after it is sent), so the client never gives up, and nginx never closes the request's connection,
 * before the cut.
 */
export const IN_FLIGHT_CLIENT_MS = 10_000;
/** The cut instance's sale lands this soon after it runs again (it still reaches MySQL and Redis). */
const SALE_LANDS_BOUND_MS = 5_000;
/** Room on top of nginx's connect timeout for an answer after the cut, on a loaded machine. */
const AFTER_SLACK_MS = 3_000;
/** nginx's timers run on its cached clock: one may fire a little before the client has seen the full timeout pass. */
const TIMER_SLACK_MS = 200;

/** The bounds of nginx that decide what a client of a cut instance waits, as the cluster's config sets them. */
export interface NginxBounds {
  connectMs: number;
  /** /check/lock's proxy_read_timeout: how long nginx waits for an answer on a link that went silent. */
  readMs: number;
  /** How long nginx keeps an idle upstream connection; a request sent down one into a cut waits readMs. */
  keepaliveMs: number;
  workers: number;
  /** `proxy_next_upstream off` in `location = /check/lock`: a deduction is never resent. */
  neverResends: boolean;
}

/**
 * nginx's defaults for a server line without max_fails/fail_timeout, as the cluster renders them:
 * one failed attempt takes the instance out of that worker's rotation for 10 s.
 */
const FAIL_TIMEOUT_MS = 10_000;

function seconds(template: string, directive: RegExp, name: string): number {
  const m = directive.exec(template);
  if (!m) throw new Error(`nginx template: no ${name}`);
  return Number(m[1]) * (m[2] === 'ms' ? 1 : 1_000);
}

/** The bounds from the project's nginx template (src/cluster/nginx.ts changes only its addresses and capacity). */
export function nginxBounds(template = fs.readFileSync(NGINX_TEMPLATE, 'utf8')): NginxBounds {
  const checkLock = /location\s*=\s*\/check\/lock\s*\{([^}]*)\}/.exec(template)?.[1];
  if (checkLock === undefined) throw new Error('nginx template: no `location = /check/lock`');
  const read = /proxy_read_timeout\s+(\d+)(ms|s)?;/;
  return {
    connectMs: seconds(template, /proxy_connect_timeout\s+(\d+)(ms|s)?;/, 'proxy_connect_timeout'),
    // the location's own, else the server's
    readMs: read.test(checkLock) ? seconds(checkLock, read, 'proxy_read_timeout') : seconds(template, read, 'proxy_read_timeout'),
    keepaliveMs: seconds(/upstream\s+\S+\s*\{[^}]*\}/.exec(template)?.[0] ?? '', /keepalive_timeout\s+(\d+)(ms|s)?;/, 'upstream keepalive_timeout'),
    workers: Number(/^\s*worker_processes\s+(\d+);/m.exec(template)?.[1] ?? 1),
    neverResends: /proxy_next_upstream\s+off;/.test(checkLock),
  };
}

/** Established TCP connections from nginx to `server`, counted inside nginx's namespace. */
async function nginxLinksTo(layout: HostsLayout, server: string): Promise<number> {
  const nginx = hostOf(layout, 'nginx');
  const to = hostOf(layout, server);
  if (!nginx || !to) throw new Error(`no host nginx or ${server} in the layout`);
  const out = await runCommand('ip', ['netns', 'exec', nginx.namespace, 'ss', '-Htn', 'state', 'established', 'dst', to.address]);
  return out.stdout.split('\n').filter((l) => l.trim() !== '').length;
}

/**
 * Watches `others` for the request in flight: a copy nginx resent would stop an instance at the
 * same hook (no other request carries one). Each one stopped is let go and named.
 */
function watchResends(others: readonly Instance[]): { stop(): string[] } {
  const resentTo: string[] = [];
  const timer = setInterval(() => resentTo.push(...releaseStopped(others)), 5);
  return {
    stop() {
      clearInterval(timer);
      return resentTo;
    },
  };
}

/** Each sale after the cut is answered within this: nginx's connect timeout (a 504) plus room. */
const afterBound = (bounds: NginxBounds) => bounds.connectMs + AFTER_SLACK_MS;

/** The row's expectation (a note rendered in both languages). */
export function nginxCutExpected(n: number, bounds: NginxBounds): string {
  return (
    `the request in flight: unanswered at the lab's ${IN_FLIGHT_CLIENT_MS / 1000} s (nginx's bound: proxy_read_timeout ${bounds.readMs / 1000} s), never resent, /sales settles it as 1 sale; ` +
    `then N (${n}) through nginx, each answered ≤ ${afterBound(bounds) / 1000} s (200, or 504 at proxy_connect_timeout, nothing sold); nothing oversold or twice`
  );
}

export async function nginxCutCase(ctx: FaultContext): Promise<FaultRow> {
  const n = ctx.sizes.sell;
  const key = { scenario: SCENARIO, strategy: STRATEGY, variant: 'nginx cut from the instance with a request in flight', store: 'mysql' as const };
  const net = labNetwork(ctx, SCENARIO);
  const bounds = nginxBounds();
  const afterBoundMs = afterBound(bounds);
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const front = { base: ctx.cluster.info.nginx, via: 'nginx' };
    const all = instances(ctx.cluster);
    const before: Sent[] = [];
    for (let k = 0; k < BEFORE; k++) before.push(await c.send(front, 'before', SALE_PARAMS));
    const inFlight = c.send(front, 'inflight', IN_FLIGHT_PARAMS, IN_FLIGHT_CLIENT_MS);
    const pid = await waitAnyStopped(
      all.flatMap((i) => (i.server.pid === undefined ? [] : [i.server.pid])),
      FREEZE_TIMEOUT_MS,
    );
    const at = all.find((i) => i.server.pid === pid);
    if (pid === undefined || !at)
      return { expected: 'an instance stops at pause=before-write', holds: () => false, details: [holderText(await inFlight, 'in flight')] };
    const others = all.filter((i) => i !== at);
    let inFlightDone = false;
    void inFlight.then(() => (inFlightDone = true));
    const watch = watchResends(others);
    let resentTo: string[] | undefined;
    let healed = false;
    try {
      // A request nginx sent down an idle kept-alive connection after the cut would wait out
      // proxy_read_timeout: the cut comes once nginx has closed them (keepalive_timeout).
      const idleClosed = await pollUntil(async () => (await nginxLinksTo(net.layout, at.server.name)) <= 1, bounds.keepaliveMs + 3_000, 100);
      if (!idleClosed) {
        const links = await nginxLinksTo(net.layout, at.server.name);
        return {
          expected: `nginx closes its idle connections to ${at.via} ≤ ${bounds.keepaliveMs + 3_000} ms`,
          holds: () => false,
          details: [`nginx still holds ${links} connections to ${at.via}`],
        };
      }
      const cutAt = await net.partition(cut(['nginx'], [at.server.name]));
      // The order this case is about: the request still in flight when the cut came.
      const inOrder = !inFlightDone;
      const leftBefore = ctx.sizes.initial - before.filter((s) => outcomeKey(s.outcome) === '200').length;
      resume(pid);
      const landed = await pollUntil(async () => (await unitsLeft(ctx.cluster.info, 'mysql')) === leftBefore - 1, SALE_LANDS_BOUND_MS, 10);
      const after: Sent[] = [];
      for (let k = 0; k < n; k++) after.push(await c.send(front, 'after', SALE_PARAMS));
      const afterMs = Date.now() - cutAt.t;
      const answered = await inFlight;
      resentTo = watch.stop();
      await net.heal();
      healed = true;
      const sales = (await readSales(liveBase(ctx.cluster))) ?? {};
      const timedOut = after.filter((s) => outcomeKey(s.outcome) === '504');
      const slowest = Math.max(...after.map((s) => s.ms));
      const inFlightSales = sales[answered.id] ?? 0;
      const timedOutSold = timedOut.filter((s) => (sales[s.id] ?? 0) > 0).length;
      const details = [
        `before the cut, through nginx: ${answersText(before)}`,
        `in flight on ${at.via} (nginx chose it): stopped at pause=before-write; nginx's idle connections to it closed, then cut at ${cutAt.at}: ${cutAt.text}${inOrder ? '' : ' — AFTER its client had given up: the case did not show what it is for'}`,
        `${at.via} ran on: its sale ${landed ? 'landed' : `did NOT land within ${SALE_LANDS_BOUND_MS} ms`}; its answer went into the cut`,
        `${holderText(answered, 'in flight')} (the lab's bound ${IN_FLIGHT_CLIENT_MS} ms; nginx's own: proxy_read_timeout ${bounds.readMs} ms, then 504); GET /sales: committed ${inFlightSales} time(s)`,
        `resent to: ${resentTo.length > 0 ? resentTo.join(', ') : 'none'} (proxy_next_upstream off for /check/lock: ${bounds.neverResends ? 'yes' : 'NO'})`,
        `after the cut, through nginx: ${answersText(after)} within ${afterMs} ms; the slowest answer ${slowest} ms (bound ${afterBoundMs} ms); ` +
          `${timedOut.length} × 504 (nginx tried ${at.via}: proxy_connect_timeout ${bounds.connectMs} ms, then out of that worker's rotation for ${FAIL_TIMEOUT_MS} ms; ${bounds.workers} workers), ${timedOutSold} of them sold`,
      ];
      const afterOk =
        after.every((s) => ['200', '504'].includes(outcomeKey(s.outcome)) && s.ms <= afterBoundMs) &&
        timedOut.every((s) => s.ms >= bounds.connectMs - TIMER_SLACK_MS) &&
        timedOutSold === 0;
      return {
        expected: nginxCutExpected(n, bounds),
        details,
        facts: {
          cutInstance: at.via,
          resentTo: resentTo.join(','),
          inFlightMs: answered.ms,
          inFlightSales,
          after504: timedOut.length,
          slowestAfterMs: slowest,
          readTimeoutMs: bounds.readMs,
        },
        holds: (m) =>
          isSafe(m) &&
          inOrder &&
          landed &&
          bounds.neverResends &&
          resentTo?.length === 0 &&
          isOutcomeUnknown(answered.outcome) &&
          inFlightSales === 1 &&
          before.every((s) => outcomeKey(s.outcome) === '200') &&
          afterOk &&
          m.deducted === BEFORE + 1 + (after.length - timedOut.length),
      };
    } finally {
      resentTo ??= watch.stop();
      if (!healed) await net.heal();
    }
  });
}

export const nginxCut: Scenario = {
  name: SCENARIO,
  topology: 'hosts',
  family: 'partition',
  // nginx's figures from the template itself, read when the report asks
  get description() {
    const b = nginxBounds();
    return (
      `nginx cut from one instance while a deduction is in flight on it (the hosts topology; ${STRATEGY}, store=mysql). ${BEFORE} sales go through nginx; the next one stops its instance at pause=before-write (nginx picks the instance). ` +
      `nginx keeps idle connections to an instance for keepalive_timeout (${b.keepaliveMs / 1000} s), and a request it sent down one after the cut would wait out proxy_read_timeout; so the lab waits until nginx holds only the one in flight, ` +
      'then cuts nginx and that instance both ways (iptables DROP inside both namespaces; the instance still reaches MySQL and Redis) and lets it run: its sale lands, its answer goes into the cut. ' +
      `Then N sales through nginx, one at a time. The request in flight gets no answer: nginx would answer 504 only after proxy_read_timeout (${b.readMs / 1000} s in the project's config), so the lab gives up at ${IN_FLIGHT_CLIENT_MS / 1000} s and counts it as an unknown outcome, which GET /sales settles as one sale; ` +
      `no other instance ever sees it (a resent copy would stop there at the same hook): /check/lock has proxy_next_upstream off. After the cut, each sale is answered within proxy_connect_timeout (${b.connectMs / 1000} s) plus room: ` +
      `a 200 from the other two, or, when an nginx worker (${b.workers} of them, each with its own view of the instances) still tries the cut instance, a 504 at the connect timeout, nothing sent and nothing sold, after which that worker leaves the instance out for fail_timeout (${FAIL_TIMEOUT_MS / 1000} s). Healed after.`
    );
  },
  async run(ctx) {
    if (!ctx.wants(STRATEGY)) return [];
    return [await nginxCutCase(ctx)];
  },
};
