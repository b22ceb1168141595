-- keys: 1
-- Fencing, step one: raises the stock's fence for one token source to this holder's token, only
-- if every token seen so far is smaller. Tokens stay below 2^53, so Lua's numbers compare them exactly.
-- KEYS[1] the stock's fence for the source; ARGV[1] token. Returns 1 when claimed, 0 when refused.
if tonumber(redis.call('get', KEYS[1]) or '0') < tonumber(ARGV[1]) then
  redis.call('set', KEYS[1], ARGV[1])
  return 1
end
return 0
