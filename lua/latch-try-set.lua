-- keys: 1
-- Redisson's trySetCount: arms a countdown latch only if it is not armed yet (the first call wins).
-- KEYS[1] count left; ARGV[1] count. Returns 1 when armed, 0 when it already was.
if redis.call('exists', KEYS[1]) == 1 then
  return 0
end
redis.call('set', KEYS[1], ARGV[1])
return 1
