-- fair_leave.lua: a waiter of a fair lock stops waiting (it timed out, was interrupted, or its
-- factory closed): its queue entry goes at once, and if it was first, the next waiter is told.
--
-- KEYS[1]  the queue: waiter id -> sequence number
-- KEYS[2]  the queue's leases: waiter id -> server time (ms) its entry expires
-- KEYS[3]  the lock key
-- ARGV[1]  the waiter's id
-- ARGV[2]  the wake-up channel
-- ARGV[3]  how: 'spublish' or 'publish' (see fair_release.lua)
--
-- Reply: 1 when the entry was there, else 0.
local head = redis.call('zrange', KEYS[1], 0, 0)[1]
local removed = redis.call('zrem', KEYS[1], ARGV[1])
redis.call('zrem', KEYS[2], ARGV[1])
if removed == 1 and head == ARGV[1] and redis.call('exists', KEYS[3]) == 0 then
  -- The next live waiter: places whose lease ran out go first (see fair_acquire.lua).
  local time = redis.call('time')
  local nowMillis = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local dead = redis.call('zrangebyscore', KEYS[2], '-inf', nowMillis)
  if #dead > 0 then
    redis.call('zrem', KEYS[1], unpack(dead))
    redis.call('zrem', KEYS[2], unpack(dead))
  end
  local next = redis.call('zrange', KEYS[1], 0, 0)[1]
  if next then
    local published = false
    if ARGV[3] == 'spublish' then
      published = type(redis.pcall('spublish', ARGV[2], 'to:' .. next)) == 'number'
    end
    if not published then
      redis.call('publish', ARGV[2], 'to:' .. next)
    end
  end
end
return removed
