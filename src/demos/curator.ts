// Curator's recipes (course §3.7) behind the course's endpoints, over a ZooKeeper session of the
// group's own: /test/zk/read and /test/zk/write (the read-write lock), /test/zk/semaphore,
// /test/zk/barrier (the double barrier), /test/zk/share/count and /test/zk/atomic. The recipes
// themselves are in src/locks/zk; the mutexes among them are also strategies (strategies/zookeeper.ts).
import { Exception } from 'node-zookeeper-client';
import { redisCall } from '../redis-client/call.js';
import { ZkSession, zkCode } from '../locks/zk/session.js';
import { barrierRoute, barriersDir } from './curator/barrier-route.js';
import { counterPaths, counterRoutes, type CounterRoutes } from './curator/counter-routes.js';
import { GAUGE_KEYS, lockRoutes } from './curator/lock-routes.js';
import type { RecipeContext } from './curator/context.js';
import type { DemoFactory } from './demo.js';

/** Apart from the stock locks' root, so a reset of one never touches the other's nodes. */
export const ZK_RECIPES_ROOT = '/stocklab/recipes';

export const curatorDemos: DemoFactory = async ({ config, logger, redis }) => {
  const { connect, sessionTimeoutMs } = config.zookeeper;
  // Bounded: an instance whose ZooKeeper is down still starts, and these routes answer 503.
  const session = await ZkSession.open({ connect, sessionTimeoutMs, root: ZK_RECIPES_ROOT, logger }, Math.min(config.startupTimeoutMs, 5_000));
  const ctx: RecipeContext = { session, redis, limits: config.limits, instance: config.instanceId };
  let counters: CounterRoutes | undefined;

  return {
    name: 'curator',
    routes(app) {
      lockRoutes(app, ctx);
      barrierRoute(app, ctx);
      counters = counterRoutes(app, ctx);
    },
    async reset() {
      // Every holder's, waiter's and member's node (as POST /stock/reset does for the stock locks),
      // then the persistent ones that hold state: the counters and each barrier's `ready`.
      await session.clearEphemeralNodes();
      const deadline = Date.now() + session.timeoutMs;
      const barriers = await session.getChildren(barriersDir(session.root), deadline).catch((err: unknown) => {
        if (zkCode(err) === Exception.NO_NODE) return [];
        throw err;
      });
      const paths = [...Object.values(counterPaths(session.root)), ...barriers.map((b) => `${barriersDir(session.root)}/${b}/ready`)];
      await Promise.all(paths.map((path) => session.remove(path, deadline)));
      await redisCall(() => redis.del(...Object.values(GAUGE_KEYS)));
    },
    async close() {
      counters?.close();
      await session.close();
    },
  };
};
