-- keys: 2
-- Extends one hold's lease of a read-write lock (the watchdog's tick), only while it has not ended.
-- KEYS[1] lock hash; KEYS[2] lease ends; ARGV[1] owner token; ARGV[2] 'read' or 'write'; ARGV[3] lease in ms.
-- Returns 1 when extended, else 0.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local mine = (ARGV[2] == 'read' and 'r:' or 'w:') .. ARGV[1]
local ends = redis.call('zscore', KEYS[2], mine)
if redis.call('hexists', KEYS[1], mine) == 0 or not ends or tonumber(ends) <= now then
  return 0
end
redis.call('zadd', KEYS[2], now + tonumber(ARGV[3]), mine)
local last = tonumber(redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')[2])
redis.call('pexpire', KEYS[1], last - now)
redis.call('pexpire', KEYS[2], last - now)
return 1
