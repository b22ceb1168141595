// Beyond the course: the check and the decrement as one Lua script, no lock at all.
import { luaDecrement } from '../stock/redis-atomic.js';
import { declareStrategies } from './declare.js';
import type { FamilyFactory } from './strategy.js';

export const redisLuaFamily: FamilyFactory = async (deps) => ({
  strategies: declareStrategies(deps, [
    {
      name: 'redis-lua-decr',
      family: 'redis',
      course: 'beyond the course',
      description: {
        en: 'The check and the decrement as one Lua script on the Redis stock key: no lock, no retry.',
        zh: '判断库存和扣减库存放在同一个 Lua 脚本里，直接作用在 Redis 的库存 key 上：不加锁，也不重试。',
      },
      expected: { oneInstance: 'exact', threeInstances: 'exact', note: 'beyond the course: Redis runs a script atomically' },
      stores: ['redis'],
      deduct: async (req) => ({ outcome: await luaDecrement(deps.redis, req.workMs, req.requestId) }),
    },
  ]),
});
