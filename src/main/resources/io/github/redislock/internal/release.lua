-- release.lua: delete the lock key when it still holds the caller's token, and wake waiters.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's companion hash (same cluster slot); field "c" is the fencing counter
-- ARGV[1]  the caller's token
-- ARGV[2]  the wake-up channel to publish on
-- ARGV[3]  the companion hash's time to live in milliseconds
-- ARGV[4]  the hold's fencing token, or 0: under Redlock the counter is raised to it, so that
--          every node this hold was released on issues greater tokens afterwards (one node's
--          counter is at least the token already)
--
-- Replies:
--   {1, n}  released now; n clients (of other JVMs or factories) were waiting on the channel
--   {0, 0}  not the owner: the key is gone, holds another token, or is not a string. A retry
--           after a lost reply gets this too when the first call released; the caller tells the
--           two apart by its lease (a key cannot expire before it), so nothing is written here
--           to remember releases.
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  if ARGV[4] ~= '0' then
    local counter = tonumber(redis.call('hget', KEYS[2], 'c') or '0')
    if counter < tonumber(ARGV[4]) then
      redis.call('hset', KEYS[2], 'c', ARGV[4])
      redis.call('pexpire', KEYS[2], ARGV[3])
    end
  end
  return {1, redis.call('publish', ARGV[2], 'released')}
end
return {0, 0}
