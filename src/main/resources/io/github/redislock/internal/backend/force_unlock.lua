-- force_unlock.lua: delete a lock whoever holds it, for RedisLockFactory.forceUnlock, and wake
-- waiters. The holders learn it at their next renewal, which finds their key or share gone.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the read shares of a read-write lock of the name
-- KEYS[3]  the holder's description (see describe.lua)
-- ARGV[1]  the wake-up channel
-- ARGV[2]  how to publish: 'spublish' (a Redis Cluster; a server without it gets 'publish'
--          instead) or 'publish'
--
-- Reply: the number of keys deleted among the lock key and the read shares (0: nothing held).
local deleted = redis.call('del', KEYS[1], KEYS[2])
redis.call('del', KEYS[3])
if deleted > 0 then
  if ARGV[2] == 'spublish' then
    local n = redis.pcall('spublish', ARGV[1], 'released')
    if type(n) == 'number' then
      return deleted
    end
  end
  redis.call('publish', ARGV[1], 'released')
end
return deleted
