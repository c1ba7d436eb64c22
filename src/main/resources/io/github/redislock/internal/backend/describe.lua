-- describe.lua: who holds a lock, written beside its key when the factory describes its holders
-- (RedisLockFactory.Builder.describeHolders), with the lock's expiry, for inspect.lua.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the description: a hash with fields t (the holder's token), h (host), p (process id),
--          n (thread name), s (server time in ms the description was written: since when)
-- ARGV[1]  the holder's token
-- ARGV[2]  the host, or '' to only extend an existing description (after a renewal)
-- ARGV[3]  the process id
-- ARGV[4]  the thread name
-- ARGV[5]  the time to live in ms: the lease
--
-- Replies: 1 written or extended; 0 the lock key does not hold the token (nothing written, so a
-- late description never outlives its hold).
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
if redis.pcall('hget', KEYS[2], 't') ~= ARGV[1] then
  if ARGV[2] == '' then
    return 0
  end
  local time = redis.call('time')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  redis.call('del', KEYS[2])
  redis.call('hset', KEYS[2], 't', ARGV[1], 'h', ARGV[2], 'p', ARGV[3], 'n', ARGV[4], 's', now)
end
redis.call('pexpire', KEYS[2], ARGV[5])
return 1
