-- keys: 3
-- Gives a permit of a permit-expirable semaphore back, only if its lease has not ended (then it
-- came back, or will, by itself), and tells the waiters.
-- KEYS[1] permits left; KEYS[2] lease ends; KEYS[3] channel; ARGV[1] permit id.
-- Returns 1 when given back, 0 when the permit was no longer held.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ends = redis.call('zscore', KEYS[2], ARGV[1])
if not ends or tonumber(ends) <= now then
  return 0
end
redis.call('zrem', KEYS[2], ARGV[1])
if redis.call('exists', KEYS[1]) == 1 then
  redis.call('publish', KEYS[3], redis.call('incr', KEYS[1]))
end
return 1
