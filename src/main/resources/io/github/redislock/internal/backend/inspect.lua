-- inspect.lua: a snapshot of one lock name, for RedisLockFactory.inspect; writes nothing.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's companion hash, whose field "c" is the fencing counter
-- KEYS[3]  the holder's description: a hash (see describe.lua)
-- KEYS[4]  the read shares of a read-write lock of the name: share token -> server time (ms) its
--          lease ends
-- ARGV[1]  the wake-up channel
--
-- Reply: {owner, pttl, counter, holder, readers, subscribers}
--   owner        the lock key's value, or nil when there is none (or it is not a string)
--   pttl         the lock key's remaining time to live in ms (-2: no key, -1: no expiry)
--   counter      the fencing counter, as text ("0" when none)
--   holder       the description's fields and values, flat ({} when none)
--   readers      the read shares whose lease has not run out
--   subscribers  the channel's subscribers, plain and sharded
local owner = redis.pcall('get', KEYS[1])
if type(owner) ~= 'string' then
  owner = false
end
local pttl = redis.call('pttl', KEYS[1])
local counter = redis.pcall('hget', KEYS[2], 'c')
if type(counter) ~= 'string' then
  counter = '0'
end
local holder = redis.pcall('hgetall', KEYS[3])
if holder['err'] then
  holder = {}
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local readers = redis.pcall('zcount', KEYS[4], '(' .. now, '+inf')
if type(readers) ~= 'number' then
  readers = 0
end
local subscribers = 0
for _, kind in ipairs({'numsub', 'shardnumsub'}) do
  local counts = redis.pcall('pubsub', kind, ARGV[1])
  if type(counts) == 'table' and counts[2] then
    subscribers = subscribers + counts[2]
  end
end
return {owner, pttl, counter, holder, readers, subscribers}
