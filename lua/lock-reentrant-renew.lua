-- keys: 1
-- Extends a reentrant lease only while this owner still holds it (the watchdog's tick).
-- KEYS[1] lock key; ARGV[1] owner token; ARGV[2] lease in ms. Returns 1 when extended, else 0.
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0
