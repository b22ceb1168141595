-- keys: 2
-- Takes one permit of a permit-expirable semaphore (Redisson's RPermitExpirableSemaphore): the
-- permit has an id and a lease, and comes back by itself when the lease ends (its holder died).
-- KEYS[1] permits left; KEYS[2] lease ends (permit id -> server ms). ARGV[1] permit id; ARGV[2] lease in ms.
-- Returns {1, 0} when taken; else {0, ms until the soonest lease ends (-1: none)}.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ended = redis.call('zremrangebyscore', KEYS[2], '-inf', now)
if ended > 0 and redis.call('exists', KEYS[1]) == 1 then
  redis.call('incrby', KEYS[1], ended)
end
local left = tonumber(redis.call('get', KEYS[1]) or '0')
if left > 0 then
  redis.call('decr', KEYS[1])
  redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
  return {1, 0}
end
local soonest = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')[2]
return {0, soonest and (tonumber(soonest) - now) or -1}
