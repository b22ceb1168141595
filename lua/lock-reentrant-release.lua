-- keys: 2
-- Gives back one hold of a reentrant lease; the last hold deletes it and announces the release.
-- KEYS[1] lock key; KEYS[2] release channel; ARGV[1] owner token; ARGV[2] lease in ms.
-- Returns nil when this owner holds nothing, 0 when holds remain, 1 when the lock was freed.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[1], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], KEYS[1])
return 1
