-- fair_release.lua: delete a fair lock's key when it still holds the caller's token, and wake the
-- first live waiter of its queue alone (no thundering herd): the message names it.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the queue: waiter id -> sequence number
-- KEYS[3]  the queue's leases: waiter id -> server time (ms) its entry expires
-- ARGV[1]  the caller's token
-- ARGV[2]  the wake-up channel
-- ARGV[3]  how: 'spublish' (sharded Pub/Sub, on a Redis Cluster; a server without it gets
--          'publish' instead) or 'publish'
--
-- Replies (an integer):
--   1 + n   released now; n clients were subscribed to the channel
--   0       not the owner: the key is gone, holds another token, or is not a string
-- Message: 'to:<waiter id>' for the first live waiter, or 'released' when nobody queues.
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
local time = redis.call('time')
local nowMillis = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local dead = redis.call('zrangebyscore', KEYS[3], '-inf', nowMillis)
if #dead > 0 then
  redis.call('zrem', KEYS[2], unpack(dead))
  redis.call('zrem', KEYS[3], unpack(dead))
end
local head = redis.call('zrange', KEYS[2], 0, 0)[1]
local message = 'released'
if head then
  message = 'to:' .. head
end
if ARGV[3] == 'spublish' then
  local n = redis.pcall('spublish', ARGV[2], message)
  if type(n) == 'number' then
    return 1 + n
  end
end
return 1 + redis.call('publish', ARGV[2], message)
