-- release.lua: delete the lock key when it still holds the caller's token, and wake waiters.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's companion hash (same cluster slot); field "r" remembers the released token
-- ARGV[1]  the caller's token
-- ARGV[2]  the wake-up channel to publish on
-- ARGV[3]  the companion hash's time to live in milliseconds
-- ARGV[4]  the hold's fencing token, or 0: under Redlock the counter is raised to it, so that
--          every node this hold was released on issues greater tokens afterwards (one node's
--          counter is at least the token already)
--
-- Replies:
--   {1, n}  released now; n clients (of other JVMs or factories) were waiting on the channel
--   {2, 0}  already released by an earlier call with this token (its reply was lost)
--   {0, 0}  not the owner: the key is gone, holds another token, or is not a string
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  if redis.call('hset', KEYS[2], 'r', ARGV[1]) == 1 then
    redis.call('pexpire', KEYS[2], ARGV[3]) -- the field is new: the hash may be too
  end
  if ARGV[4] ~= '0' then
    local counter = tonumber(redis.call('hget', KEYS[2], 'c') or '0')
    if counter < tonumber(ARGV[4]) then
      redis.call('hset', KEYS[2], 'c', ARGV[4])
    end
  end
  return {1, redis.call('publish', ARGV[2], 'released')}
end
if redis.pcall('hget', KEYS[2], 'r') == ARGV[1] then
  return {2, 0}
end
return {0, 0}
