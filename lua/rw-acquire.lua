-- keys: 2
-- One attempt at a read-write lock (Redisson's RedissonReadLock and RedissonWriteLock): many
-- readers or one writer, both reentrant. The writer may also read (a downgrade: once it gives
-- the write lock back, its reads remain); a reader never gets the write lock while it reads.
-- Each hold has a lease of its own, so a dead reader's hold ends without ending the others'.
-- KEYS[1] lock hash: 'mode' ('read' or 'write'), and a hold count per owner and mode ('r:' or 'w:' .. owner);
-- KEYS[2] lease ends: each hold of KEYS[1] -> server ms.
-- ARGV[1] owner token; ARGV[2] 'read' or 'write'; ARGV[3] lease in ms.
-- Returns {1, this owner's holds in this mode} when held; else {0, ms until the soonest lease ends}.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- Holds whose lease ended (their holder died) go first. A writer gone leaves its reads, if any.
for _, hold in ipairs(redis.call('zrangebyscore', KEYS[2], '-inf', now)) do
  redis.call('hdel', KEYS[1], hold)
  redis.call('zrem', KEYS[2], hold)
  if string.sub(hold, 1, 2) == 'w:' then
    redis.call('hset', KEYS[1], 'mode', 'read')
  end
end
if redis.call('hlen', KEYS[1]) <= 1 then
  redis.call('del', KEYS[1])
end
local mode = redis.call('hget', KEYS[1], 'mode')
local mine = (ARGV[2] == 'read' and 'r:' or 'w:') .. ARGV[1]
local granted
if not mode then
  granted = true
  redis.call('hset', KEYS[1], 'mode', ARGV[2])
elseif ARGV[2] == 'read' then
  granted = mode == 'read' or redis.call('hexists', KEYS[1], 'w:' .. ARGV[1]) == 1
else
  granted = mode == 'write' and redis.call('hexists', KEYS[1], mine) == 1
end
if not granted then
  local soonest = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')[2]
  return {0, soonest and (tonumber(soonest) - now) or -1}
end
local holds = redis.call('hincrby', KEYS[1], mine, 1)
redis.call('zadd', KEYS[2], 'GT', now + tonumber(ARGV[3]), mine)
-- Both keys live as long as the longest lease, in case nobody comes back to clean them.
local last = tonumber(redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')[2])
redis.call('pexpire', KEYS[1], last - now)
redis.call('pexpire', KEYS[2], last - now)
return {1, holds}
