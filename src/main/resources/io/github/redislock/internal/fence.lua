-- fence.lua: raise this node's fencing counter to the hold's token, while the hold is still ours.
-- Under Redlock a hold's token is the maximum of the tokens its majority's nodes issued; raising
-- the counters of that majority to it makes every later majority (which shares a node with it)
-- issue a greater token.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's companion hash (same cluster slot); field "c" is the fencing counter
-- ARGV[1]  the caller's token
-- ARGV[2]  the hold's fencing token
-- ARGV[3]  the companion hash's time to live in milliseconds
--
-- Replies:
--   1   the counter is at least the fencing token now
--   0   not the owner on this node
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
local counter = tonumber(redis.call('hget', KEYS[2], 'c') or '0')
if counter < tonumber(ARGV[2]) then
  redis.call('hset', KEYS[2], 'c', ARGV[2])
end
redis.call('pexpire', KEYS[2], ARGV[3])
return 1
