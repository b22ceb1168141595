-- keys: 2
-- Redisson's countDown: one fewer; at 0 the latch opens (its key goes) and every waiter is told.
-- KEYS[1] count left; KEYS[2] channel. Returns the count left (0 also when it was already open).
if redis.call('exists', KEYS[1]) == 0 then
  return 0
end
local left = redis.call('decr', KEYS[1])
if left > 0 then
  return left
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], 0)
return 0
