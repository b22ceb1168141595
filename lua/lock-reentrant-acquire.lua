-- keys: 2
-- A reentrant lease: a hash owner -> hold count, one owner at a time (Redisson's lock script). The
-- first hold draws the grant's fencing token from the resource's counter and keeps it in the hash
-- (field ':fence', which no owner token can be), so a nested hold gets the same token.
-- KEYS[1] lock key; KEYS[2] fence counter; ARGV[1] owner token; ARGV[2] lease in ms.
-- Returns {1, token} when acquired (or re-entered), else {0, the holder's remaining lease in ms (-1: none)}.
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[1], 1)
  redis.call('pexpire', KEYS[1], ARGV[2])
  return {1, tonumber(redis.call('hget', KEYS[1], ':fence'))}
end
if redis.call('exists', KEYS[1]) == 1 then
  return {0, redis.call('pttl', KEYS[1])}
end
-- As in lock-string-acquire.lua: a lost counter restarts from the server's clock in microseconds.
if redis.call('exists', KEYS[2]) == 0 then
  local now = redis.call('time')
  redis.call('set', KEYS[2], now[1] .. string.format('%06d', tonumber(now[2])))
end
local token = redis.call('incr', KEYS[2])
redis.call('hset', KEYS[1], ARGV[1], 1, ':fence', token)
redis.call('pexpire', KEYS[1], ARGV[2])
return {1, token}
