-- rw_write.lua: take the write lock of a read-write lock, or leave the writer's intent and tell how
-- long the lock stays busy.
--
-- The write lock is the lock key itself: a string holding the writer's token with a PX lease, as
-- for every lock of this library (renewed by extend.lua, released by release.lua, fenced by
-- refence.lua and the companion hash's counter). It is free when the key is absent and no read
-- share is live. A writer that finds it busy leaves an intent with a lease of its own, renewed by
-- each of its attempts: readers that come while an intent is live wait behind it (rw_read.lua), so
-- that writers are not starved.
--
-- KEYS[1]  the lock key (the write lock)
-- KEYS[2]  the read shares: a sorted set, share token -> server time (ms) its lease ends
-- KEYS[3]  the writers' intents: a sorted set, writer id -> server time (ms) its intent ends, or,
--          for the id of a wait that withdrew its intent (rw_leave.lua) while one of its attempts
--          may still have been on its way, minus the server time (ms) that bar ends
-- KEYS[4]  the lock's companion hash (same cluster slot); field "c" is the fencing counter
-- ARGV[1]  the caller's token
-- ARGV[2]  the lease in milliseconds (of the hold, and of the intent)
-- ARGV[3]  the writer's id (the same for every attempt of one wait), or "" to leave no intent
--          (tryLock(): one attempt)
-- ARGV[4]  the time to live of the intents and of the companion hash, in milliseconds
-- ARGV[5]  "1" to issue a fencing token with the acquisition, else "0"
--
-- Replies:
--   {1, fencingToken}      acquired (fencingToken 0 when none was asked for); also when the key
--                          already holds ARGV[1] (a retry after a lost reply)
--   {0, pttl, ourFormat}   a writer holds the lock: its remaining lease (-1: never expires), and
--                          1 when its token looks like this library's (it publishes on release)
--   {0, pttl, 1}           readers hold the lock: pttl is the time until the last share's lease
--                          ends (the last share to go publishes, see rw_read_release.lua)
--   {0, 0, 0}              the writer's id is barred: its wait withdrew before this attempt
--                          arrived, which takes nothing and leaves no intent
--   error                  the lock key exists but is not a string (WRONGTYPE)
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if ARGV[3] ~= '' then
  local mine = redis.call('zscore', KEYS[3], ARGV[3])
  if mine and tonumber(mine) < -now then
    return {0, 0, 0}
  end
end
local writer = redis.pcall('get', KEYS[1])
if type(writer) == 'table' then
  local kind = redis.call('type', KEYS[1])['ok']
  return redis.error_reply('WRONGTYPE the lock key ' .. KEYS[1] .. ' holds a ' .. kind .. ', not a lock token')
end
local busy
if writer == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
elseif writer then
  local ourFormat = 0
  if string.sub(writer, 1, 4) == 'rl1:' then ourFormat = 1 end
  busy = {0, redis.call('pttl', KEYS[1]), ourFormat}
else
  redis.call('zremrangebyscore', KEYS[2], '-inf', now)
  local last = redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')
  if last[2] then
    busy = {0, tonumber(last[2]) - now, 1}
  else
    redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  end
end

if busy then
  if ARGV[3] ~= '' then
    redis.call('zremrangebyscore', KEYS[3], -now, now) -- lapsed intents, and ended bars
    redis.call('zadd', KEYS[3], now + tonumber(ARGV[2]), ARGV[3])
    redis.call('pexpire', KEYS[3], ARGV[4])
  end
  return busy
end
if ARGV[3] ~= '' then
  redis.call('zrem', KEYS[3], ARGV[3])
end
local fence = 0
if ARGV[5] == '1' then
  fence = math.max(tonumber(redis.call('hget', KEYS[4], 'c') or '0') + 1,
      tonumber(time[1]) * 1000000 + tonumber(time[2]))
  redis.call('hset', KEYS[4], 'c', string.format('%d', fence))
  redis.call('pexpire', KEYS[4], ARGV[4]) -- the counter outlives its last token, not its first
end
return {1, fence}
