// The Express app: routes and error mapping only. Strategies come from the catalog.
import express, { type Express } from 'express';
import { newOwnerToken } from './locks/owner.js';
import { errorHandler } from './http/errors.js';
import { faultHooks } from './http/fault-hooks.js';
import { parseCheckParams, parseRequestId, parseResetBody } from './http/params.js';
import { INITIAL_COUNT, PRODUCT_CODE, STOCK_CODE } from './stock/product.js';
import type { Catalog } from './strategies/catalog.js';
import type { SharedDeps } from './strategies/strategy.js';

export function createApp(deps: SharedDeps, catalog: Catalog): Express {
  const { config, stock, logger } = deps;
  const instance = config.instanceId;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: '1kb' }));

  app.get('/check/lock', async (req, res) => {
    const { strategy, request, pause } = parseCheckParams(req.query, catalog, config.defaultStrategy, config.limits, config.faultInjection);
    const requestId = parseRequestId(req.headers['x-request-id']);
    const hooks = faultHooks(pause);
    const result = await strategy.deduct({ ...request, owner: newOwnerToken(instance), ...(requestId && { requestId }), ...(hooks && { hooks }) });
    if (result.outcome === 'sold_out') {
      res.status(409).json({ ok: false, error: 'sold_out', strategy: strategy.name, instance });
      return;
    }
    res.json({ ok: true, strategy: strategy.name, instance, ...(result.warning && { warning: result.warning }) });
  });

  app.get('/stock', async (_req, res) => {
    const [mysql, redis] = await Promise.all([stock.mysql.read(), stock.redis.read()]);
    res.json({ ok: true, product: PRODUCT_CODE, warehouse: STOCK_CODE, mysql, redis, instance });
  });

  app.post('/stock/reset', async (req, res) => {
    const count = parseResetBody(req.body ?? { count: INITIAL_COUNT });
    // Read both stores first so a store that is down fails the reset before anything changes.
    await Promise.all([stock.mysql.read(), stock.redis.read()]);
    await Promise.all([stock.mysql.reset(count), stock.redis.reset(count)]);
    const locksNotCleared = await catalog.clearLocks();
    res.json({ ok: true, mysql: count, redis: count, instance, ...(locksNotCleared.length > 0 && { locksNotCleared }) });
  });

  // Request id → how many times its deduction committed, both stores together (X-Request-Id).
  app.get('/sales', async (_req, res) => {
    const [mysql, redis] = await Promise.all([stock.mysql.sales(), stock.redis.sales()]);
    const sales: Record<string, number> = { ...mysql };
    for (const [id, n] of Object.entries(redis)) sales[id] = (sales[id] ?? 0) + n;
    res.json({ ok: true, sales, instance });
  });

  app.get('/strategies', (_req, res) => {
    res.json({
      ok: true,
      default: config.defaultStrategy,
      strategies: catalog.list().map(({ name, family, description, expected, stores, sql, sqlFenced, guard }) => ({
        name,
        family,
        description,
        expected,
        stores,
        ...(guard?.fencing && { fencing: guard.fencing }),
        ...(sql && { sql }),
        ...(sqlFenced && { sqlFenced }),
      })),
    });
  });

  // The bench's ceiling: the same path through nginx and Express with no work behind it.
  app.get('/noop', (_req, res) => {
    res.json({ ok: true, instance });
  });

  app.get('/health', async (_req, res) => {
    const [mysql, redis, families] = await Promise.all([
      stock.mysql.read().then(() => true, () => false),
      deps.redis.ping().then(() => true, () => false),
      catalog.health(),
    ]);
    const checks = { mysql, redis, ...families };
    res.status(mysql ? 200 : 503).json({ ok: Object.values(checks).every(Boolean), instance, checks });
  });

  app.use((req, res) => {
    res.status(404).json({ ok: false, error: 'not_found', message: `no route ${req.method} ${req.path}` });
  });
  app.use(errorHandler(logger));
  return app;
}
