-- release.lua: delete the lock key when it still holds the caller's token, and wake waiters.
--
-- KEYS[1]  the lock key
-- KEYS[2]  only under Redlock, for a hold that issued a fencing token: the lock's companion hash
--          (same cluster slot), whose field "c" is the fencing counter
-- ARGV[1]  the caller's token
-- ARGV[2]  the wake-up channel to publish on
-- ARGV[3]  how: 'spublish' (sharded Pub/Sub, on a Redis Cluster; a server without it, before 7.0,
--          gets 'publish' instead) or 'publish'
-- ARGV[4]  with KEYS[2]: the hold's fencing token. The counter is raised to it, so that every
--          node this hold was released on issues greater tokens afterwards (under Redlock a
--          hold's token may come from another node's counter)
-- ARGV[5]  with KEYS[2]: the companion hash's time to live in milliseconds, set again where the
--          key is released
--
-- Replies (an integer: cheaper for the server than an array):
--   1 + n   released now; n clients (of other JVMs or factories) were waiting on the channel
--   0       not the owner: the key is gone, holds another token, or is not a string. A retry
--           after a lost reply gets this too when the first call released; the caller tells the
--           two apart by whether the first call may have run and by its lease (a key cannot
--           expire before it), so nothing is written here to remember releases.
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  if KEYS[2] then
    local counter = tonumber(redis.call('hget', KEYS[2], 'c') or '0')
    if counter < tonumber(ARGV[4]) then
      redis.call('hset', KEYS[2], 'c', ARGV[4])
    end
    redis.call('pexpire', KEYS[2], ARGV[5])
  end
  if ARGV[3] == 'spublish' then
    local n = redis.pcall('spublish', ARGV[2], 'released')
    if type(n) == 'number' then
      return 1 + n
    end
  end
  return 1 + redis.call('publish', ARGV[2], 'released')
end
return 0
