-- rw_read_extend.lua: renew a read share's lease while its lease has not run out.
--
-- KEYS[1]  the read shares: a sorted set, share token -> server time (ms) its lease ends
-- ARGV[1]  the share's token
-- ARGV[2]  the lease in milliseconds
--
-- Replies: 1 renewed; 0 the share is gone (its lease ran out, or it was removed), and stays gone:
-- a writer may have taken the lock since.
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local score = redis.pcall('zscore', KEYS[1], ARGV[1])
if type(score) ~= 'string' or tonumber(score) <= now then
  return 0
end
redis.call('zadd', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
if redis.call('pttl', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('pexpire', KEYS[1], ARGV[2]) -- outlives its shares by no more than a lease
end
return 1
