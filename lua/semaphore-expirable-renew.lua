-- keys: 1
-- Extends a permit's lease (the watchdog's tick), only while it has not ended.
-- KEYS[1] lease ends; ARGV[1] permit id; ARGV[2] lease in ms. Returns 1 when extended, else 0.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ends = redis.call('zscore', KEYS[1], ARGV[1])
if not ends or tonumber(ends) <= now then
  return 0
end
redis.call('zadd', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 1
