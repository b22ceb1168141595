-- keys: 3
-- Redisson's trySetPermits: sets a semaphore's permits only if it has none set yet (the first call wins).
-- KEYS[1] permits left; KEYS[2] permits set (what trySetPermits asked); KEYS[3] channel; ARGV[1] permits.
-- Returns 1 when set, 0 when the semaphore already existed.
if redis.call('exists', KEYS[1]) == 1 then
  return 0
end
redis.call('set', KEYS[1], ARGV[1])
redis.call('set', KEYS[2], ARGV[1])
redis.call('publish', KEYS[3], ARGV[1])
return 1
