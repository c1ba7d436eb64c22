-- fair_acquire.lua: take a fair lock in the order waiters reached Redis, or queue for it.
--
-- The lock key is the same string key, holding the owner's token with a PX lease, as every other
-- lock of this library (and every client of SET NX PX): a fair lock of a name excludes and is
-- excluded by any lock of that key. The queue orders waiters by a sequence number this script
-- draws (one more than the last place's), never by a client clock; each entry has a lease of its own, refreshed by every attempt
-- of its waiter, so that the entry of a waiter whose process died is skipped once it runs out.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the queue: a sorted set, waiter id -> sequence number (the order of arrival)
-- KEYS[3]  the queue's leases: a sorted set, waiter id -> server time (ms) its entry expires, or,
--          for the id of a wait that left the queue (fair_leave.lua) while one of its attempts may
--          still have been on its way, minus the server time (ms) that bar ends
-- KEYS[4]  the lock's companion hash, whose field "c" is the fencing counter
-- ARGV[1]  the caller's token
-- ARGV[2]  the lease in milliseconds
-- ARGV[3]  the waiter's id (the same for every attempt of one wait); empty unless ARGV[7] is "0"
-- ARGV[4]  the waiter entry's lease in milliseconds
-- ARGV[5]  the companion hash's and the queue's time to live in milliseconds
-- ARGV[6]  "1" to issue a fencing token with the acquisition, else "0"
-- ARGV[7]  the turn: "0" for a waiter (take the lock if it is free and the waiter is first, else
--          queue it or renew its place); "1" to barge (tryLock(): take the lock if it is free,
--          whoever waits; queue nothing); "2" to take the lock if it is free and nobody waits
--          (tryLock(0, unit); queue nothing)
--
-- Replies:
--   {1, fencingToken}          acquired (fencingToken 0 when none was asked for); also when the
--                              key already holds ARGV[1] (a retry after a lost reply), and when
--                              it holds the waiter's id (a release handed the lock to it)
--   {0, pttl, ourFormat, head} not acquired: how long to wait at most before the next attempt,
--                              whether a wake-up will come before then, and the id of the first
--                              waiter. While another owner holds the lock: its remaining lease
--                              (-1: never expires) and whether its token looks like this
--                              library's (ours publish on release). While the lock is free but
--                              another waiter is first: the remaining lease of that waiter's place
--                              (it takes the lock, or leaves, or is skipped once its place runs
--                              out) and 1
--   {0, 0, 0, ''}              the waiter's id is barred: its wait left the queue before this
--                              attempt arrived, which takes nothing and queues nothing
--   error                      the lock key exists but is not a string (WRONGTYPE)
local time = redis.call('time')
local nowMillis = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

-- Waiters whose entry ran out (their process died, or stopped waiting without leaving), and bars
-- that ended.
local dead = redis.call('zrangebyscore', KEYS[3], -nowMillis, nowMillis)
if #dead > 0 then
  redis.call('zrem', KEYS[2], unpack(dead))
  redis.call('zrem', KEYS[3], unpack(dead))
end
if ARGV[7] == '0' then
  local mine = redis.call('zscore', KEYS[3], ARGV[3])
  if mine and tonumber(mine) < 0 then
    return {0, 0, 0, ''}
  end
end

local kind = redis.call('type', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'string' then
  return redis.error_reply('WRONGTYPE the lock key ' .. KEYS[1] .. ' holds a ' .. kind .. ', not a lock token')
end
local holder = redis.call('get', KEYS[1])
local head = redis.call('zrange', KEYS[2], 0, 0)[1]
-- A place without a lease (its entry in KEYS[3] deleted or evicted) would never run out.
while head and not redis.call('zscore', KEYS[3], head) do
  redis.call('zrem', KEYS[2], head)
  head = redis.call('zrange', KEYS[2], 0, 0)[1]
end
local acquired = false
if holder == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  acquired = true
elseif ARGV[7] == '0' and holder == ARGV[3] then
  -- A release handed the lock to this waiter (fair_release.lua), whose wake-up has not come or
  -- was lost: the hold takes this attempt's token.
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  acquired = true
elseif not holder and (ARGV[7] == '1' or not head or head == ARGV[3]) then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  acquired = true
end

if acquired then
  redis.call('zrem', KEYS[2], ARGV[3])
  redis.call('zrem', KEYS[3], ARGV[3])
  local fence = 0
  if ARGV[6] == '1' then
    fence = math.max(tonumber(redis.call('hget', KEYS[4], 'c') or '0') + 1,
        tonumber(time[1]) * 1000000 + tonumber(time[2]))
    redis.call('hset', KEYS[4], 'c', string.format('%d', fence))
    redis.call('pexpire', KEYS[4], ARGV[5])
  end
  return {1, fence}
end

if ARGV[7] == '0' then
  if not redis.call('zscore', KEYS[2], ARGV[3]) then
    -- One more than the last place: the order needs no counter that could be lost without the
    -- queue (a counter restarting at 1 would put a newcomer before the waiters of its keys).
    local last = redis.call('zrange', KEYS[2], -1, -1, 'WITHSCORES')[2]
    redis.call('zadd', KEYS[2], (tonumber(last) or 0) + 1, ARGV[3])
    head = head or ARGV[3]
  end
  redis.call('zadd', KEYS[3], nowMillis + tonumber(ARGV[4]), ARGV[3])
  redis.call('pexpire', KEYS[2], ARGV[5])
  redis.call('pexpire', KEYS[3], ARGV[5])
end

if holder then
  local ourFormat = 0
  if string.sub(holder, 1, 4) == 'rl1:' then ourFormat = 1 end
  return {0, redis.call('pttl', KEYS[1]), ourFormat, head or ''}
end
-- Free, but another waiter is first: wait for it no longer than its place lasts.
return {0, math.max(tonumber(redis.call('zscore', KEYS[3], head)) - nowMillis, 0), 1, head}
