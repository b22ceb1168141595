-- keys: 1
-- The whole check-and-decrement in one atomic step on the Redis stock key.
-- KEYS[1] stock key. Returns 1 when a unit was taken, 0 when sold out (or the key is missing).
local count = tonumber(redis.call('get', KEYS[1]) or '0')
if count <= 0 then
  return 0
end
redis.call('decr', KEYS[1])
return 1
