-- rw_read.lua: take a read share of a read-write lock, or tell how long to wait.
--
-- Each reading thread holds a share of its own: a member of a sorted set whose score is the server
-- time (ms) its lease ends, so that every share expires on its own (the share of a reader whose
-- process died goes with its lease). A share is refused while a writer holds the lock key, and,
-- unless the caller barges, while a writer's intent is live (rw_write.lua): readers that come
-- after a waiting writer wait behind it.
--
-- KEYS[1]  the lock key (the write lock)
-- KEYS[2]  the read shares: a sorted set, share token -> server time (ms) its lease ends
-- KEYS[3]  the writers' intents: a sorted set, writer id -> server time (ms) its intent ends
-- ARGV[1]  the share's token
-- ARGV[2]  the lease in milliseconds
-- ARGV[3]  the token of the caller's own write hold (a downgrade: the share is taken whoever
--          waits), or ""
-- ARGV[4]  "1" to take a share whatever writers wait (tryLock()), else "0"
--
-- Replies:
--   1                      the share is taken (also when it was there already: a retry after a
--                          lost reply); an integer, which costs the server less than an array
--   {0, pttl, ourFormat}   a writer holds the lock: its remaining lease (-1: never expires), and
--                          1 when its token looks like this library's
--   {0, pttl, 1}           a writer waits: pttl is the time until the last intent ends
--   error                  the lock key exists but is not a string (WRONGTYPE)
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
-- The common case, neither a writer nor a waiting one, in one call.
if redis.call('exists', KEYS[1], KEYS[3]) > 0 then
  local writer = redis.pcall('get', KEYS[1])
  if type(writer) == 'table' then
    local kind = redis.call('type', KEYS[1])['ok']
    return redis.error_reply('WRONGTYPE the lock key ' .. KEYS[1] .. ' holds a ' .. kind .. ', not a lock token')
  end
  if writer and writer ~= ARGV[3] then
    local ourFormat = 0
    if string.sub(writer, 1, 4) == 'rl1:' then ourFormat = 1 end
    return {0, redis.call('pttl', KEYS[1]), ourFormat}
  end
  if not writer and ARGV[4] ~= '1' then
    -- The live intent that ends last, if any (lapsed ones are left for rw_write.lua to purge).
    local last = redis.call('zrevrangebyscore', KEYS[3], '+inf', '(' .. now, 'WITHSCORES', 'LIMIT', 0, 1)
    if last[2] and not redis.call('zscore', KEYS[2], ARGV[1]) then
      return {0, tonumber(last[2]) - now, 1}
    end
  end
end
redis.call('zadd', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
if redis.call('pttl', KEYS[2]) < tonumber(ARGV[2]) then
  redis.call('pexpire', KEYS[2], ARGV[2]) -- outlives its shares by no more than a lease
end
return 1
