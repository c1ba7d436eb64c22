-- fair_leave.lua: a waiter of a fair lock stops waiting (it timed out, was interrupted, or its
-- factory closed): its place goes at once. If the lock is its own (a release handed it the lock, or
-- an attempt of the wait that is still on its way took it), or the waiter was the first live one
-- while the lock is free, the lock goes to the next live waiter, as in fair_release.lua, or is
-- released when nobody waits. When an attempt of the wait may still reach Redis, the waiter's id
-- is barred for a lease: such an attempt, arriving after this script, takes nothing and queues
-- nothing (fair_acquire.lua).
--
-- KEYS[1]  the queue: waiter id -> place number
-- KEYS[2]  the queue's leases: waiter id -> server time (ms) its place runs out, or, for a barred
--          id, minus the server time (ms) its bar ends
-- KEYS[3]  the lock key
-- ARGV[1]  the waiter's id
-- ARGV[2]  the wake-up channel
-- ARGV[3]  how: 'spublish' or 'publish' (see fair_release.lua)
-- ARGV[4]  the token of an attempt of the wait that may still reach Redis, or '' when none may
-- ARGV[5]  how long the id stays barred when ARGV[4] is not '', in milliseconds
--
-- Reply: 1 when the waiter had a place or held the lock, else 0.
-- Message: 'to:<waiter id>' for the waiter the lock went to; else 'released' when the waiter's
-- lock was released.
local time = redis.call('time')
local nowMillis = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
-- Places whose lease ran out, and bars that ended, before the first live waiter is found.
local dead = redis.call('zrangebyscore', KEYS[2], -nowMillis, nowMillis)
if #dead > 0 then
  redis.call('zrem', KEYS[1], unpack(dead))
  redis.call('zrem', KEYS[2], unpack(dead))
end
local head = redis.call('zrange', KEYS[1], 0, 0)[1]
while head and not redis.call('zscore', KEYS[2], head) do
  redis.call('zrem', KEYS[1], head) -- a place without a lease never runs out (fair_acquire.lua)
  head = redis.call('zrange', KEYS[1], 0, 0)[1]
end

local removed = redis.call('zrem', KEYS[1], ARGV[1])
redis.call('zrem', KEYS[2], ARGV[1])
if ARGV[4] ~= '' then
  redis.call('zadd', KEYS[2], -(nowMillis + tonumber(ARGV[5])), ARGV[1])
  if redis.call('pttl', KEYS[2]) < tonumber(ARGV[5]) then
    redis.call('pexpire', KEYS[2], ARGV[5])
  end
end

local holder = redis.pcall('get', KEYS[3])
local message
if holder == ARGV[1] or (ARGV[4] ~= '' and holder == ARGV[4]) then
  redis.call('del', KEYS[3])
  removed = 1
  message = 'released'
elseif not (removed == 1 and head == ARGV[1] and holder == false) then
  return removed
end
local next = redis.call('zrange', KEYS[1], 0, 0)[1]
while next do
  local placeEnd = redis.call('zscore', KEYS[2], next)
  redis.call('zrem', KEYS[1], next)
  redis.call('zrem', KEYS[2], next)
  if placeEnd then
    redis.call('set', KEYS[3], next, 'PX', tonumber(placeEnd) - nowMillis)
    message = 'to:' .. next
    break
  end
  next = redis.call('zrange', KEYS[1], 0, 0)[1]
end
if message then
  local published = false
  if ARGV[3] == 'spublish' then
    published = type(redis.pcall('spublish', ARGV[2], message)) == 'number'
  end
  if not published then
    redis.call('publish', ARGV[2], message)
  end
end
return removed
