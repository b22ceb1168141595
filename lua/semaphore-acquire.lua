-- keys: 1
-- Takes one permit of a semaphore if one is left (Redisson's RSemaphore.tryAcquire).
-- KEYS[1] permits left. Returns 1 when taken, 0 when none is left (or no permits were ever set).
local left = tonumber(redis.call('get', KEYS[1]) or '0')
if left > 0 then
  redis.call('decr', KEYS[1])
  return 1
end
return 0
