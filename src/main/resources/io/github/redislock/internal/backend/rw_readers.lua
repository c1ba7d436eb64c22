-- rw_readers.lua: how many read shares of a read-write lock are live (read-only).
--
-- KEYS[1]  the read shares: a sorted set, share token -> server time (ms) its lease ends
--
-- Reply: the number of shares whose lease has not run out.
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return redis.call('zcount', KEYS[1], '(' .. now, '+inf')
