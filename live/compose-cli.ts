// The compose service `live` (profile live): the live lab's server and page, as `npm run live`
// serves them, against the compose stack this container belongs to, its faults driven through the
// Docker Engine API on the mounted socket. SIGTERM (compose stop/down) heals every fault first.
import { runCli } from '../src/cli/args.js';
import { loadLiveConfig, loadServiceConfig } from '../src/config.js';
import { bundlePage } from './assets.js';
import { composeServers } from './compose-servers.js';
import { startLiveServer } from './http.js';

async function main(): Promise<number> {
  const live = loadLiveConfig();
  const servers = await composeServers(loadServiceConfig());
  const server = await startLiveServer(servers, live, await bundlePage());
  console.error(
    `stocklab live (compose, ${servers.topology}): listening on ${live.host}:${live.port}; lanes ${servers.instances.map((p) => p.name).join(', ')}; open the port compose published (127.0.0.1:8090 by default)`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  console.error('live: healing every fault and stopping …');
  await server.close();
  return 0;
}

runCli('live', 'the compose service `live` (docker compose --profile live up -d); no flags', main);
