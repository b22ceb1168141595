-- keys: 4
-- Gives back one hold of the fair lock; the last hold frees it and names the first in line on the
-- channel, so only that waiter wakes (waiters gone from the line are dropped first).
-- KEYS[1] lock hash; KEYS[2] line; KEYS[3] time in line; KEYS[4] channel; ARGV[1] owner token; ARGV[2] lease in ms.
-- Returns nil when this owner holds nothing, 0 when holds remain, 1 when the lock was freed.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[1], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('del', KEYS[1])
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _, waiter in ipairs(redis.call('zrangebyscore', KEYS[3], '-inf', now)) do
  redis.call('zrem', KEYS[2], waiter)
  redis.call('zrem', KEYS[3], waiter)
end
local first = redis.call('zrange', KEYS[2], 0, 0)[1]
if first then
  redis.call('publish', KEYS[4], first)
end
return 1
