-- fence.lua: raise this node's fencing counter to at least a hold's token.
-- Under Redlock a hold's token is the maximum of the tokens its majority's nodes issued; raising
-- the counters of any majority to it makes every later majority (which shares a node with it)
-- issue a greater token. Raising a counter is harmless whoever holds the lock, so no ownership is
-- checked here.
--
-- KEYS[1]  the lock's companion hash; field "c" is the fencing counter
-- ARGV[1]  the hold's fencing token
-- ARGV[2]  the companion hash's time to live in milliseconds
--
-- Reply: 1, the counter is at least the fencing token now; an error when the companion key is
-- not a hash.
local counter = tonumber(redis.call('hget', KEYS[1], 'c') or '0')
if counter < tonumber(ARGV[1]) then
  redis.call('hset', KEYS[1], 'c', ARGV[1])
end
redis.call('pexpire', KEYS[1], ARGV[2])
return 1
