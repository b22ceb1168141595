// The Express app: routes and error mapping only. Strategies come from the catalog.
import express, { type Express } from 'express';
import type { Demos } from './demos/demo.js';
import { newOwnerToken } from './locks/owner.js';
import { requireJsonBody } from './http/client-errors.js';
import { errorHandler } from './http/errors.js';
import { faultHooks } from './http/fault-hooks.js';
import { leak } from './http/leak.js';
import type { InFlight } from './http/in-flight.js';
import { ServiceMetrics } from './http/metrics.js';
import { observedBy } from './locks/observer.js';
import { postRoute, readRoute, changingGetRoute } from './http/methods.js';
import { parseCheckParams, parseClockOffset, parseLang, parseRequestId, parseResetBody } from './http/params.js';
import { HoldRecord } from './locks/hold-record.js';
import { serverTiming } from './http/server-timing.js';
import { lockClock } from './locks/lock-clock.js';
import { PRODUCT_CODE, STOCK_CODE } from './stock/product.js';
import type { Catalog } from './strategies/catalog.js';
import { servedStrategy } from './strategies/served.js';
import type { DeductResult, SharedDeps } from './strategies/strategy.js';

/** GET /health's wait for MySQL, a free pooled connection included. */
const HEALTH_WAIT_MS = 500;

/** POST /stock/reset's body is `{"count": N}`: a few bytes. */
const RESET_BODY_LIMIT = '1kb';

export function createApp(deps: SharedDeps, catalog: Catalog, demos: Demos, inFlight: InFlight): Express {
  const { config, stock, logger } = deps;
  const instance = config.instanceId;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const counts = new ServiceMetrics(instance);
  // Draining: every answer closes its connection, so nginx opens no more requests on it.
  app.use((_req, res, next) => {
    if (inFlight.isDraining) res.setHeader('Connection', 'close');
    next();
  });

  // The course's GET, kept for the lab (a real shop would take a POST: see the README). HEAD is refused.
  changingGetRoute(app, '/check/lock', async (req, res) => {
    const { strategy, request, pause, leakKb } = parseCheckParams(req.query, catalog, config.defaultStrategy, config.limits, config.faultInjection);
    res.locals.strategy = strategy.name; // the error handler counts refusals per strategy
    const requestId = parseRequestId(req.headers['x-request-id']);
    const hooks = faultHooks(pause);
    if (leakKb !== undefined) leak(leakKb);
    const signal = inFlight.admit(res);
    const hold = new HoldRecord();
    let result: DeductResult;
    try {
      // the locks report their waits, holds and events to this strategy's metrics
      result = await observedBy(counts.observerFor(strategy.name), () =>
        strategy.deduct({ ...request, owner: newOwnerToken(instance), signal, hold, ...(requestId && { requestId }), ...(hooks && { hooks }) }),
      );
    } finally {
      // Refusals too (503 fenced, lock_lost): their holds are the ones worth seeing.
      const timing = serverTiming(hold);
      if (timing && !res.headersSent) res.setHeader('Server-Timing', timing);
    }
    if (result.outcome === 'sold_out') {
      counts.add({ route: '/check/lock', strategy: strategy.name, status: 409, error: 'sold_out' });
      res.status(409).json({ ok: false, error: 'sold_out', strategy: strategy.name, instance });
      return;
    }
    counts.add({ route: '/check/lock', strategy: strategy.name, status: 200 });
    res.json({
      ok: true,
      strategy: strategy.name,
      instance,
      ...(result.warning && { warning: result.warning }),
      ...(result.ticket && { ticket: result.ticket }),
      ...(hold.token !== undefined && { fencingToken: String(hold.token) }),
    });
  });

  readRoute(app, '/stock', async (_req, res) => {
    const [mysql, redis, postgres] = await Promise.all([stock.mysql.read(), stock.redis.read(), stock.postgres.read()]);
    res.json({ ok: true, product: PRODUCT_CODE, warehouse: STOCK_CODE, mysql, redis, postgres, instance });
  });

  // JSON only, checked before the body is read: a web page can send a form or text/plain to
  // localhost without a preflight, and must not reset the stock with it.
  postRoute(
    app,
    '/stock/reset',
    (req, _res, next) => next(requireJsonBody(req.headers['content-type'])),
    express.json({ limit: RESET_BODY_LIMIT }),
    async (req, res) => {
      const count = parseResetBody(req.body);
      // Read every store first so a store that is down fails the reset before anything changes.
      await Promise.all([stock.mysql.read(), stock.redis.read(), stock.postgres.read()]);
      await Promise.all([stock.mysql.reset(count), stock.redis.reset(count), stock.postgres.reset(count)]);
      const [locksNotCleared, demosNotCleared] = await Promise.all([catalog.clearLocks(), demos.reset()]);
      res.json({
        ok: true,
        mysql: count,
        redis: count,
        postgres: count,
        instance,
        ...(locksNotCleared.length > 0 && { locksNotCleared }),
        ...(demosNotCleared.length > 0 && { demosNotCleared }),
      });
    },
  );

  // Request id → how many times its deduction committed, every store together (X-Request-Id).
  readRoute(app, '/sales', async (_req, res) => {
    const perStore = await Promise.all([stock.mysql.sales(), stock.redis.sales(), stock.postgres.sales()]);
    const sales: Record<string, number> = {};
    for (const store of perStore) for (const [id, n] of Object.entries(store)) sales[id] = (sales[id] ?? 0) + n;
    res.json({ ok: true, sales, instance });
  });

  // The fault lab's clock skew for the locks that store timestamps (see locks/lock-clock.ts): only
  // with FAULT_INJECTION=1; otherwise the path does not exist.
  if (config.faultInjection) {
    postRoute(
      app,
      '/fault/clock',
      (req, _res, next) => next(requireJsonBody(req.headers['content-type'])),
      express.json({ limit: RESET_BODY_LIMIT }),
      (req, res) => {
        lockClock.offsetMs = parseClockOffset(req.body);
        res.json({ ok: true, offsetMs: lockClock.offsetMs, instance });
      },
    );
  }

  // Human text (description, the course label) in the language asked for; names and fields stay as in code.
  readRoute(app, '/strategies', (req, res) => {
    const lang = parseLang(req.query, req.headers['accept-language']);
    res.setHeader('Vary', 'Accept-Language');
    res.setHeader('Content-Language', lang === 'zh' ? 'zh-CN' : 'en');
    res.json({
      ok: true,
      default: config.defaultStrategy,
      strategies: catalog.list().map((s) => servedStrategy(s, lang)),
    });
  });

  // The bench's ceiling: the same path through nginx and Express with no work behind it.
  readRoute(app, '/noop', (_req, res) => {
    res.json({ ok: true, instance });
  });

  readRoute(app, '/health', async (_req, res) => {
    const [mysql, redis, families] = await Promise.all([
      // Bounded: a pool full of slow deductions must not hold /health up.
      stock.mysql.reachable(HEALTH_WAIT_MS),
      deps.redis.ping().then(
        () => true,
        () => false,
      ),
      catalog.health(),
    ]);
    const checks = { mysql, redis, ...families };
    res.status(mysql ? 200 : 503).json({ ok: Object.values(checks).every(Boolean), instance, checks });
  });

  // Prometheus text (src/http/metrics.ts): process metrics, answers, lock waits/holds/events (scrape each instance).
  readRoute(app, '/metrics', async (_req, res) => {
    res.type(counts.contentType).send(await counts.text());
  });

  // The course's other primitives: GET /test/... (src/demos). They hold locks and commit too, so
  // they are admitted like a deduction: capped, aborted when their client leaves, drained on shutdown.
  app.use('/test/', (_req, res, next) => {
    inFlight.admit(res);
    next();
  });
  demos.routes(app);

  app.use((req, res) => {
    res.status(404).json({ ok: false, error: 'not_found', message: `no route ${req.method} ${req.path}` });
  });
  app.use(errorHandler(logger, counts));
  return app;
}
