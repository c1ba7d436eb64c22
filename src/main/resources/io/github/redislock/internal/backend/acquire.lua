-- acquire.lua: take the lock when it is free and, when asked, issue a fencing token, in one
-- atomic step. The caller runs a plain SET NX PX instead when it expects the lock to be free and
-- needs no token: this script is for the rest (a busy lock's remaining lease, a retry after a lost
-- reply, a fencing token with the acquisition).
--
-- KEYS[1]  the lock key: a string holding the owner's token, with a PX lease
-- KEYS[2]  to issue a fencing token: the lock's companion hash (same cluster slot), whose field
--          "c" is the fencing counter
-- ARGV[1]  the caller's token
-- ARGV[2]  the lease in milliseconds
-- ARGV[3]  with KEYS[2]: the companion hash's time to live in milliseconds, set again with every
--          token issued
--
-- Replies:
--   1                       acquired, no fencing token asked for (also when the key already
--                           holds ARGV[1]: an earlier attempt of this caller set it, and its reply
--                           was lost); an integer, which costs the server less than an array
--   {1, fencingToken}       acquired, with a fencing token
--   {0, pttl, ourFormat}    held by another owner; pttl is -1 when the key never expires,
--                           ourFormat is 1 when the holder's token looks like this library's
--                           (such holders publish on release), else 0
--   error                   the lock key exists but is not a string (WRONGTYPE), or the
--                           companion hash is not a hash
--
-- The fencing token is max(counter + 1, server time in microseconds), so it keeps growing after
-- the companion hash expired, was evicted, or reached a failed-over replica only in part.
if not redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local kind = redis.call('type', KEYS[1])['ok']
  if kind ~= 'string' then
    return redis.error_reply('WRONGTYPE the lock key ' .. KEYS[1] .. ' holds a ' .. kind .. ', not a lock token')
  end
  local holder = redis.call('get', KEYS[1])
  if holder ~= ARGV[1] then
    local ourFormat = 0
    if string.sub(holder, 1, 4) == 'rl1:' then ourFormat = 1 end
    return {0, redis.call('pttl', KEYS[1]), ourFormat}
  end
  redis.call('pexpire', KEYS[1], ARGV[2])
end
if not KEYS[2] then
  return 1
end
local counter = redis.pcall('hget', KEYS[2], 'c')
if type(counter) == 'table' then
  redis.call('del', KEYS[1])
  return counter
end
local time = redis.call('time')
local fence = math.max(tonumber(counter or '0') + 1,
    tonumber(time[1]) * 1000000 + tonumber(time[2]))
redis.call('hset', KEYS[2], 'c', string.format('%d', fence))
redis.call('pexpire', KEYS[2], ARGV[3]) -- the counter outlives its last token, not its first
return {1, fence}
