// `npm run live [--topology replicated|hosts] [--port N] [--rtt MS]`: brings the native cluster up as
// `npm run cluster -- up` does (its instances with the fault hooks on; with --rtt, its links delayed
// by forwarders the page may retime for a race), then serves the live lab's page on
// 127.0.0.1 and prints its address. On the hosts topology the page may also cut links. Ctrl-C heals
// every fault and cut and stops the page; the cluster stays up.
import { parseFlags, runCli } from '../src/cli/args.js';
import { clusterUp, printUrls } from '../src/cluster/lifecycle.js';
import { loadLiveConfig } from '../src/config.js';
import { loadClusterConfig } from '../src/cluster/layout.js';
import { requireHostsSupport } from '../src/net/hosts.js';
import { bundlePage } from './assets.js';
import { LIVE_FLAGS, LIVE_USAGE } from './cli-options.js';
import { startLiveServer } from './http.js';
import { recordedServers } from './servers.js';

async function main(): Promise<number> {
  const { values } = parseFlags(process.argv.slice(2), LIVE_FLAGS);
  // Flags are environment variables under another name: src/config.ts parses and checks them.
  if (values.topology !== undefined) process.env.TOPOLOGY = values.topology;
  if (values.port !== undefined) process.env.LIVE_PORT = values.port;
  if (values.rtt !== undefined) process.env.CLUSTER_RTT_MS = values.rtt;
  const config = loadClusterConfig();
  const live = loadLiveConfig();
  const say = (line: string) => console.error(line);
  // Before anything is stopped or started: without root, say so and leave the recorded cluster be.
  if (config.network === 'hosts') await requireHostsSupport();
  say('live: bringing the native cluster up (as npm run cluster -- up does, with the fault hooks on) …');
  const info = await clusterUp(say, config, { FAULT_INJECTION: '1' });
  printUrls(info, say);
  const assets = await bundlePage();
  const server = await startLiveServer(recordedServers(info, config), live, assets);
  console.log(`\nstocklab live: open ${server.url}  (Ctrl-C to stop; the cluster stays up)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  say('live: healing every fault and stopping …');
  await server.close();
  return 0;
}

runCli('live', LIVE_USAGE, main);
