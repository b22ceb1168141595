-- keys: 3
-- Fencing, step two: writes the count only while the fence is still this holder's token, and
-- records the sale (a request id) in the same step.
-- KEYS[1] stock key; KEYS[2] the stock's fence for the source; KEYS[3] sales hash;
-- ARGV[1] token; ARGV[2] count; ARGV[3] request id ('' for none). Returns 1 when written, 0 when refused.
if redis.call('get', KEYS[2]) ~= ARGV[1] then
  return 0
end
redis.call('set', KEYS[1], ARGV[2])
if ARGV[3] ~= '' then
  redis.call('hincrby', KEYS[3], ARGV[3], 1)
end
return 1
