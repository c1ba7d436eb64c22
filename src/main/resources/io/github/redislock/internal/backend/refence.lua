-- refence.lua: issue a fencing token to a hold that has none yet (it was taken by a plain
-- SET NX PX, or by the acquire script without KEYS[2]), or a new one to a hold that passed to
-- another thread of its JVM without a release in Redis (a local handoff): every holder's token
-- must be greater than the previous holder's.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's companion hash (same cluster slot); field "c" is the fencing counter
-- ARGV[1]  the hold's token
-- ARGV[2]  the companion hash's time to live in milliseconds, set again with every token issued
--
-- Replies: the new fencing token, max(counter + 1, server time in microseconds); or -1 when the
-- lock key no longer holds ARGV[1].
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return -1
end
local time = redis.call('time')
local fence = math.max(tonumber(redis.call('hget', KEYS[2], 'c') or '0') + 1,
    tonumber(time[1]) * 1000000 + tonumber(time[2]))
redis.call('hset', KEYS[2], 'c', string.format('%d', fence))
redis.call('pexpire', KEYS[2], ARGV[2]) -- the counter outlives its last token, not its first
return fence
