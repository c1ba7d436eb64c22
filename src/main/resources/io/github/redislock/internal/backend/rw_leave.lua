-- rw_leave.lua: a waiting writer stops waiting (it timed out, was interrupted, or its factory
-- closed): its intent goes at once, and when no live intent is left and no writer holds the lock,
-- the readers waiting behind it are woken.
--
-- KEYS[1]  the writers' intents: a sorted set, writer id -> server time (ms) its intent ends
-- KEYS[2]  the lock key (the write lock)
-- ARGV[1]  the writer's id
-- ARGV[2]  the wake-up channel
-- ARGV[3]  how: 'spublish' or 'publish' (see rw_read_release.lua)
--
-- Reply: 1 when the intent was there, else 0.
-- Message: 'released', when readers may take shares now.
local removed = redis.call('zrem', KEYS[1], ARGV[1])
if removed == 0 then
  return 0
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
if redis.call('zcard', KEYS[1]) == 0 and redis.call('exists', KEYS[2]) == 0 then
  local published = false
  if ARGV[3] == 'spublish' then
    published = type(redis.pcall('spublish', ARGV[2], 'released')) == 'number'
  end
  if not published then
    redis.call('publish', ARGV[2], 'released')
  end
end
return 1
