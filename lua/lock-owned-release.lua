-- keys: 1
-- Deletes a string lock only if it still holds this owner's token (check and delete in one step).
-- KEYS[1] lock key; ARGV[1] owner token. Returns 1 when deleted, 0 when the lock is not ours.
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
