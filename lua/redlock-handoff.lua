-- keys: 1
-- RedLock's hand-off on one master (see src/locks/handoff.ts): where the holder's value is still
-- there, it becomes the waiter's value with the waiter's lease, in one step.
-- KEYS[1] lock key; ARGV[1] holder's value; ARGV[2] waiter's value; ARGV[3] waiter's lease in ms.
-- Returns 1 when passed on here, 0 when the holder's value was not there.
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
