-- rw_leave.lua: a waiting writer stops waiting (it timed out, was interrupted, or its factory
-- closed): its intent goes at once, and when no live intent is left and no writer holds the lock,
-- the readers waiting behind it are woken. A write lock that an attempt of the wait still on its
-- way took is released. When an attempt of the wait may still reach Redis, the writer's id is
-- barred for a lease: such an attempt, arriving after this script, takes nothing and leaves no
-- intent (rw_write.lua).
--
-- KEYS[1]  the writers' intents: a sorted set, writer id -> server time (ms) its intent ends, or,
--          for a barred id, minus the server time (ms) its bar ends
-- KEYS[2]  the lock key (the write lock)
-- ARGV[1]  the writer's id
-- ARGV[2]  the wake-up channel
-- ARGV[3]  how: 'spublish' or 'publish' (see rw_read_release.lua)
-- ARGV[4]  the token of an attempt of the wait that may still reach Redis, or '' when none may
-- ARGV[5]  how long the id stays barred when ARGV[4] is not '', in milliseconds
--
-- Reply: 1 when the intent was there, or the write lock was released, else 0.
-- Message: 'released', when readers may take shares now.
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local intent = redis.call('zscore', KEYS[1], ARGV[1])
local removed = 0
if intent and tonumber(intent) > 0 then
  removed = 1
end
redis.call('zrem', KEYS[1], ARGV[1])
local released = false
if ARGV[4] ~= '' then
  redis.call('zadd', KEYS[1], -(now + tonumber(ARGV[5])), ARGV[1])
  if redis.call('pttl', KEYS[1]) < tonumber(ARGV[5]) then
    redis.call('pexpire', KEYS[1], ARGV[5])
  end
  if redis.pcall('get', KEYS[2]) == ARGV[4] then
    redis.call('del', KEYS[2])
    released = true
  end
end
if removed == 0 and not released then
  return 0
end
-- Intents that lapsed, and bars that ended.
redis.call('zremrangebyscore', KEYS[1], -now, now)
if released
    or (redis.call('zcount', KEYS[1], '(' .. now, '+inf') == 0 and redis.call('exists', KEYS[2]) == 0) then
  local published = false
  if ARGV[3] == 'spublish' then
    published = type(redis.pcall('spublish', ARGV[2], 'released')) == 'number'
  end
  if not published then
    redis.call('publish', ARGV[2], 'released')
  end
end
return 1
