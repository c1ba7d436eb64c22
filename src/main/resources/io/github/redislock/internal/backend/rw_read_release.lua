-- rw_read_release.lua: give back a read share; the last share to go wakes the waiting writers.
--
-- KEYS[1]  the read shares: a sorted set, share token -> server time (ms) its lease ends
-- ARGV[1]  the share's token
-- ARGV[2]  the wake-up channel
-- ARGV[3]  how: 'spublish' (sharded Pub/Sub, on a Redis Cluster; a server without it gets
--          'publish' instead) or 'publish'
--
-- Replies (an integer):
--   1 + n   the share was live and is gone; n clients were subscribed to the channel when the
--           last share went (n = 0 while other shares remain: nobody is woken)
--   0       the share was not there: a writer (or a reader's release) removed it after its lease
--           ran out. A share whose lease ran out and that nobody removed yet is given back as
--           released: nobody can have taken the write lock meanwhile, since rw_write.lua removes
--           lapsed shares before it looks.
-- Message: 'to:writers', when the last live share went: it wakes the waiting writers (and waiters
-- of a plain lock of the name), not the readers, who wait behind a writer's intent or key.
if redis.pcall('zrem', KEYS[1], ARGV[1]) ~= 1 then
  return 0
end
if redis.call('zcard', KEYS[1]) > 0 then
  -- Other shares: the last live one publishes; lapsed ones (dead readers) go now.
  local time = redis.call('time')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  redis.call('zremrangebyscore', KEYS[1], '-inf', now)
  if redis.call('zcard', KEYS[1]) > 0 then
    return 1
  end
end
if ARGV[3] == 'spublish' then
  local n = redis.pcall('spublish', ARGV[2], 'to:writers')
  if type(n) == 'number' then
    return 1 + n
  end
end
return 1 + redis.call('publish', ARGV[2], 'to:writers')
