-- fair_release.lua: delete a fair lock's key when it still holds the caller's token, and hand the
-- lock to the first live waiter of its queue at once: the key takes that waiter's id as its token,
-- and a message that names it tells it alone (no thundering herd), so that it holds the lock
-- without another round trip.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the queue: waiter id -> place number
-- KEYS[3]  the queue's leases: waiter id -> server time (ms) its place runs out (negated: a bar,
--          see fair_leave.lua)
-- ARGV[1]  the caller's token
-- ARGV[2]  the wake-up channel
-- ARGV[3]  how: 'spublish' (sharded Pub/Sub, on a Redis Cluster; a server without it gets
--          'publish' instead) or 'publish'
--
-- Replies (an integer):
--   1 + n   released now; n clients were subscribed to the channel
--   0       not the owner: the key is gone, holds another token, or is not a string
-- Message: 'to:<waiter id>' for the first live waiter, which now holds the lock (its key expires
-- when the waiter's place would have: the waiter counts its hold's lease from before its last
-- attempt, which renewed its place), or 'released' when nobody queues.
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
local time = redis.call('time')
local nowMillis = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local dead = redis.call('zrangebyscore', KEYS[3], -nowMillis, nowMillis) -- and ended bars
if #dead > 0 then
  redis.call('zrem', KEYS[2], unpack(dead))
  redis.call('zrem', KEYS[3], unpack(dead))
end
local message = 'released'
local head = redis.call('zrange', KEYS[2], 0, 0)[1]
while head do
  local placeEnd = redis.call('zscore', KEYS[3], head)
  redis.call('zrem', KEYS[2], head)
  redis.call('zrem', KEYS[3], head)
  if placeEnd then
    redis.call('set', KEYS[1], head, 'PX', tonumber(placeEnd) - nowMillis)
    message = 'to:' .. head
    break
  end
  head = redis.call('zrange', KEYS[2], 0, 0)[1] -- a place without a lease never runs out: dropped
end
if ARGV[3] == 'spublish' then
  local n = redis.pcall('spublish', ARGV[2], message)
  if type(n) == 'number' then
    return 1 + n
  end
end
return 1 + redis.call('publish', ARGV[2], message)
