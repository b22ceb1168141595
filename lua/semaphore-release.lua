-- keys: 2
-- Gives a permit back and tells the waiters (Redisson's RSemaphore.release). Unlike Redisson, a
-- semaphore that was cleared meanwhile (a reset) is not recreated with this one permit.
-- KEYS[1] permits left; KEYS[2] channel. Returns the permits left, or -1 when the semaphore is gone.
if redis.call('exists', KEYS[1]) == 0 then
  return -1
end
local left = redis.call('incr', KEYS[1])
redis.call('publish', KEYS[2], left)
return left
