-- keys: 1
-- A reentrant lease: a hash owner -> hold count, one owner at a time (Redisson's lock script).
-- KEYS[1] lock key; ARGV[1] owner token; ARGV[2] lease in ms.
-- Returns nil when acquired (or re-entered), else the holder's remaining lease in ms (-1: none).
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[1], 1)
  redis.call('pexpire', KEYS[1], ARGV[2])
  return nil
end
return redis.call('pttl', KEYS[1])
