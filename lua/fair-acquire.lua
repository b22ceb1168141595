-- keys: 6
-- One attempt at the fair lock (Redisson's RedissonFairLock, simplified): the reentrant hash lock
-- of lock-reentrant-acquire.lua, granted only to the first in line. Waiters line up by ticket, a
-- number drawn on joining, so the line is the order their first attempts reached Redis. A waiter
-- stays in line while it keeps asking: one that stops (its instance died) counts as gone once its
-- time in line runs out, and leaves the line at the next attempt or release.
-- KEYS[1] lock hash; KEYS[2] line (owner -> ticket); KEYS[3] time in line (owner -> server ms);
-- KEYS[4] ticket counter; KEYS[5] fence counter; KEYS[6] channel naming the new first in line.
-- ARGV[1] owner token; ARGV[2] lease in ms; ARGV[3] how long this waiter stays in line without asking again, in ms.
-- Returns {1, fencing token, ticket} when held (or re-entered); else {0, ms until it is worth
-- asking again unwoken (the holder's lease or the first waiter's time in line ends; -1: never), ticket}.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local gone = redis.call('zrangebyscore', KEYS[3], '-inf', now)
for _, waiter in ipairs(gone) do
  redis.call('zrem', KEYS[2], waiter)
  redis.call('zrem', KEYS[3], waiter)
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[1], 1)
  redis.call('pexpire', KEYS[1], ARGV[2])
  local held = redis.call('hmget', KEYS[1], ':fence', ':ticket')
  return {1, tonumber(held[1]), tonumber(held[2])}
end
local first = redis.call('zrange', KEYS[2], 0, 0)[1]
if redis.call('exists', KEYS[1]) == 0 then
  if first == nil or first == ARGV[1] then
    local ticket
    if first == ARGV[1] then
      ticket = tonumber(redis.call('zscore', KEYS[2], ARGV[1]))
      redis.call('zrem', KEYS[2], ARGV[1])
      redis.call('zrem', KEYS[3], ARGV[1])
    else
      ticket = redis.call('incr', KEYS[4])
    end
    -- As in lock-string-acquire.lua: a lost counter restarts from the server's clock in microseconds.
    if redis.call('exists', KEYS[5]) == 0 then
      redis.call('set', KEYS[5], t[1] .. string.format('%06d', tonumber(t[2])))
    end
    local token = redis.call('incr', KEYS[5])
    redis.call('hset', KEYS[1], ARGV[1], 1, ':fence', token, ':ticket', ticket)
    redis.call('pexpire', KEYS[1], ARGV[2])
    return {1, token, ticket}
  end
  -- The lock is free and someone else is first: it may not know (a lease ran out, a gone waiter just left).
  redis.call('publish', KEYS[6], first)
end
local ticket = redis.call('zscore', KEYS[2], ARGV[1])
if not ticket then
  ticket = redis.call('incr', KEYS[4])
  redis.call('zadd', KEYS[2], ticket, ARGV[1])
end
redis.call('zadd', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])
local hint = redis.call('pttl', KEYS[1])
local soonest = redis.call('zrange', KEYS[3], 0, 0, 'WITHSCORES')[2]
if soonest then
  local goneIn = tonumber(soonest) - now
  if hint < 0 or goneIn < hint then
    hint = goneIn
  end
end
return {0, hint, tonumber(ticket)}
