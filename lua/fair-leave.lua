-- keys: 4
-- A waiter of the fair lock gives up and leaves the line. When it was first and the lock is free,
-- the next in line is named on the channel, so it does not wait for a release that already happened.
-- KEYS[1] lock hash; KEYS[2] line; KEYS[3] time in line; KEYS[4] channel; ARGV[1] owner token.
-- Returns 1 when it was in line, else 0.
local first = redis.call('zrange', KEYS[2], 0, 0)[1]
local left = redis.call('zrem', KEYS[2], ARGV[1])
redis.call('zrem', KEYS[3], ARGV[1])
if first == ARGV[1] and redis.call('exists', KEYS[1]) == 0 then
  local next = redis.call('zrange', KEYS[2], 0, 0)[1]
  if next then
    redis.call('publish', KEYS[4], next)
  end
end
return left
