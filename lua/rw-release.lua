-- keys: 3
-- Gives back one hold of a read-write lock. When the owner's last hold in a mode goes, waiters are
-- told if that lets anyone in: the lock is free, or the writer left and only reads remain (its own:
-- a downgrade). A hold whose lease already ended is not this owner's to give back.
-- KEYS[1] lock hash; KEYS[2] lease ends; KEYS[3] channel; ARGV[1] owner token; ARGV[2] 'read' or 'write'.
-- Returns nil when this owner holds nothing in this mode, 0 when holds remain, 1 when its last one went.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local mine = (ARGV[2] == 'read' and 'r:' or 'w:') .. ARGV[1]
local ends = redis.call('zscore', KEYS[2], mine)
if redis.call('hexists', KEYS[1], mine) == 0 or not ends or tonumber(ends) <= now then
  return nil
end
if redis.call('hincrby', KEYS[1], mine, -1) > 0 then
  return 0
end
redis.call('hdel', KEYS[1], mine)
redis.call('zrem', KEYS[2], mine)
if redis.call('hlen', KEYS[1]) <= 1 then
  redis.call('del', KEYS[1], KEYS[2])
elseif ARGV[2] == 'write' then
  redis.call('hset', KEYS[1], 'mode', 'read')
else
  return 1
end
redis.call('publish', KEYS[3], ARGV[2])
return 1
