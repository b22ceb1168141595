-- keys: 2
-- Passes a reentrant lease from its holder straight to a waiter of the same process: the holder's
-- last release and the waiter's first acquire in one step, so nobody takes the lock in between.
-- Nothing is announced: the lock stays held. The waiter's grant draws a new fencing token.
-- KEYS[1] lock key; KEYS[2] fence counter; ARGV[1] holder; ARGV[2] waiter;
-- ARGV[3] holder's lease in ms; ARGV[4] waiter's lease in ms.
-- Returns nil when the holder holds nothing, {0} when its holds remain (nothing passed on),
-- {1, token} when the waiter holds the lock.
local count = redis.call('hget', KEYS[1], ARGV[1])
if not count then
  return nil
end
if tonumber(count) > 1 then
  redis.call('hincrby', KEYS[1], ARGV[1], -1)
  redis.call('pexpire', KEYS[1], ARGV[3])
  return {0}
end
-- As in lock-reentrant-acquire.lua: a lost counter restarts from the server's clock in microseconds.
if redis.call('exists', KEYS[2]) == 0 then
  local now = redis.call('time')
  redis.call('set', KEYS[2], now[1] .. string.format('%06d', tonumber(now[2])))
end
local token = redis.call('incr', KEYS[2])
redis.call('del', KEYS[1])
redis.call('hset', KEYS[1], ARGV[2], 1, ':fence', token)
redis.call('pexpire', KEYS[1], ARGV[4])
return {1, token}
