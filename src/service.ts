// Connections → catalog → HTTP server, and the reverse on close.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { Demos } from './demos/demo.js';
import { demoFactories } from './demos/groups.js';
import { InFlight } from './http/in-flight.js';
import type { ServiceConfig } from './config.js';
import { createDataSource } from './db/data-source.js';
import { openPostgresPool } from './db/postgres-pool.js';
import { createLogger, type Logger } from './logger.js';
import { sleep } from './time.js';
import { connectMainRedis, waitReady } from './redis-client/connect.js';
import { MysqlStock } from './stock/mysql-stock.js';
import { PostgresStock } from './stock/postgres-stock.js';
import { INITIAL_COUNT } from './stock/product.js';
import { RedisStock } from './stock/redis-stock.js';
import { Catalog } from './strategies/catalog.js';
import type { SharedDeps } from './strategies/strategy.js';

/** How long aborted deductions get to release their locks and answer before the clients close. */
const ABORT_GRACE_MS = 1_000;

export interface RunningService {
  url: string;
  close(): Promise<void>;
}

async function initializeWithRetry(ds: ReturnType<typeof createDataSource>, timeoutMs: number, logger: Logger): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await ds.initialize();
      return;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      logger.warn({ err: (err as Error).message }, 'mysql not reachable yet, retrying');
      await sleep(500);
    }
  }
}

export async function openService(config: ServiceConfig): Promise<RunningService> {
  const logger = createLogger(config.logLevel, config.instanceId);
  const db = createDataSource(config.mysql);
  // MySQL holds the stock: without it the instance has nothing to serve, so it waits for it.
  await initializeWithRetry(db, config.startupTimeoutMs, logger);
  const redis = connectMainRedis(config, config.instanceId);
  // Redis is optional at start: the Redis strategies answer 503 until it is reachable.
  const redisReady = await waitReady(redis, Math.min(config.startupTimeoutMs, 5_000));
  if (!redisReady) logger.warn('redis not reachable yet; continuing');

  // PostgreSQL is optional at start too: its pool connects on first use (PG_CONNECT_TIMEOUT_MS), and
  // store=postgres answers 503 postgres_unavailable until it is reachable.
  const pgPool = openPostgresPool(config.postgres, config.postgres.poolSize, `stocklab-${config.instanceId}-stock`);
  const deps: SharedDeps = {
    config,
    logger,
    db,
    redis,
    stock: { mysql: new MysqlStock(db), redis: new RedisStock(redis), postgres: new PostgresStock(pgPool) },
  };
  // The MySQL row is seeded by its migration; the Redis copy starts where the course does too.
  if (redisReady) await deps.stock.redis.seed(INITIAL_COUNT);
  const catalog = await Catalog.open(deps);
  const demos = await Demos.open(deps, demoFactories).catch(async (err: unknown) => {
    await catalog.close();
    throw err;
  });
  const inFlight = new InFlight(config.maxInFlight);
  const app = createApp(deps, catalog, demos, inFlight);

  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.host, config.server.backlog, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  // All looser than nginx's, so nginx refuses first (src/config.ts says how each compares).
  server.maxConnections = config.server.maxConnections;
  server.headersTimeout = config.server.headersTimeoutMs;
  server.requestTimeout = config.server.requestTimeoutMs;
  server.keepAliveTimeout = config.server.keepAliveTimeoutMs;
  const { port } = server.address() as AddressInfo;
  logger.info({ port, strategies: catalog.names.length }, 'listening');

  return {
    url: `http://${config.host}:${port}`,
    async close() {
      // Drain first, with the listener still open: a deduction that arrives now gets a clean 503
      // shutting_down (nothing sold) rather than a refused connection, which nginx (never resending a
      // deduction) would turn into a 502, an outcome unknown to the client.
      const drained = await inFlight.drain(config.drainMs, ABORT_GRACE_MS);
      logger.info(drained, 'drained');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), ABORT_GRACE_MS).unref();
      });
      await Promise.all([catalog.close(), demos.close()]);
      redis.disconnect();
      await Promise.all([db.destroy(), pgPool.end().catch(() => undefined)]);
    },
  };
}
