-- keys: 2
-- The whole check-and-decrement in one atomic step on the Redis stock key, recording the sale.
-- KEYS[1] stock key; KEYS[2] sales hash; ARGV[1] request id ('' for none).
-- Returns 1 when a unit was taken, 0 when sold out (or the key is missing).
local count = tonumber(redis.call('get', KEYS[1]) or '0')
if count <= 0 then
  return 0
end
redis.call('decr', KEYS[1])
if ARGV[1] ~= '' then
  redis.call('hincrby', KEYS[2], ARGV[1], 1)
end
return 1
