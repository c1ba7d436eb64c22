-- fence.lua: make a Redlock hold's fencing token binding on this node: raise the node's fencing
-- counter to at least the token, but only while the lock key still holds the hold's owner token.
-- Under Redlock a hold's token is the maximum of the tokens its majority's nodes issued. Once a
-- majority's counters were raised to it while each still held the key, every later hold's majority
-- shares a node with them, on which the later hold's key was set after the raise: so its token is
-- greater. A node where the key is gone or another owner's must not be raised: that owner may be
-- the later hold, whose token would then be below this one.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's companion hash (same cluster slot); field "c" is the fencing counter
-- ARGV[1]  the hold's owner token
-- ARGV[2]  the hold's fencing token
-- ARGV[3]  the companion hash's time to live in milliseconds
--
-- Replies:
--   1   the key holds ARGV[1], and the counter is at least the fencing token now (its expiry
--       refreshed)
--   0   the key is gone, holds another token, or is not a string: nothing is written
--   an error when the companion key is not a hash
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
local counter = tonumber(redis.call('hget', KEYS[2], 'c') or '0')
if counter < tonumber(ARGV[2]) then
  redis.call('hset', KEYS[2], 'c', ARGV[2])
end
redis.call('pexpire', KEYS[2], ARGV[3])
return 1
