-- keys: 2
-- Takes a string lock (SET NX, with PX when a lease is given) and, in the same step, draws the
-- grant's fencing token from the resource's counter.
-- KEYS[1] lock key; KEYS[2] fence counter; ARGV[1] owner token; ARGV[2] lease in ms (0: no expiry).
-- Returns the fencing token when acquired, nil when the lock is taken.
local set
if tonumber(ARGV[2]) > 0 then
  set = redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
else
  set = redis.call('set', KEYS[1], ARGV[1], 'NX')
end
if not set then
  return nil
end
-- A counter lost with its server (no persistence) starts again above every token it gave: from the
-- server's clock in microseconds, which no number of grants since can have reached.
if redis.call('exists', KEYS[2]) == 0 then
  local now = redis.call('time')
  redis.call('set', KEYS[2], now[1] .. string.format('%06d', tonumber(now[2])))
end
return redis.call('incr', KEYS[2])
