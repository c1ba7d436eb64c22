-- access.lua: before a factory takes its first lock, ask the server whether the Redis user may run
-- every command the lock sends, on the keys and channel of the lock at hand, so that a user who
-- could take a lock but not release or renew it (no scripting, a command or a key pattern missing
-- from its ACL) is refused before anything is taken. Running this script at all already proves
-- EVALSHA (or, after NOSCRIPT, EVAL). Redis 7 and later only: before, redis.acl_check_cmd does not
-- exist, and the answer is an empty list (each command is still checked as it runs).
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's companion hash (same cluster slot)
-- ARGV[1]  the lock's wake-up channel
-- ARGV[2]  how releases publish: 'spublish' (sharded, on a Redis Cluster) or 'publish'
-- ARGV[3]  how waiters subscribe: 'ssubscribe' or 'subscribe'
-- ARGV[4]  how they unsubscribe: 'sunsubscribe' or 'unsubscribe'
-- ARGV[5]  the kind of lock, for the commands its own scripts run besides: 'lock' (none), 'fair'
--          (its queue), 'rw' (read shares and writers' intents) or 'cond' (a condition's queues);
--          their keys sit beside the lock key, like the companion hash, so KEYS[2] stands for them
--
-- Reply: the commands the user may not run, each as "command key-or-channel"; empty when it may
-- run them all.
local denied = {}
if not redis.acl_check_cmd then
  return denied
end
local function check(...)
  if not redis.acl_check_cmd(...) then
    local words = {...}
    table.insert(denied, table.concat(words, ' ', 1, math.min(#words, 2)))
  end
end
-- Sent by the library itself.
check('set', KEYS[1], 'token', 'NX', 'PX', '1')
check('exists', KEYS[1])
check('evalsha', '0000000000000000000000000000000000000000', '1', KEYS[1])
check('eval', 'return 0', '1', KEYS[1])
check(ARGV[3], ARGV[1])
check(ARGV[4], ARGV[1])
check('ping')
-- Run by its scripts (acquire, extend, release, fence, refence).
check('get', KEYS[1])
check('type', KEYS[1])
check('pttl', KEYS[1])
check('pexpire', KEYS[1], '1')
check('del', KEYS[1])
check('hget', KEYS[2], 'c')
check('hset', KEYS[2], 'c', '1')
check('pexpire', KEYS[2], '1')
check('time')
check(ARGV[2], ARGV[1], 'released')
-- Run by the scripts of the other kinds (fair_*.lua, rw_*.lua, condition.lua), on sorted sets.
local besides = {
  fair = {'zadd', 'zrange', 'zrangebyscore', 'zrem', 'zscore'},
  rw = {'zadd', 'zrange', 'zrem', 'zremrangebyscore', 'zrevrangebyscore', 'zscore', 'zcard',
        'zcount'},
  cond = {'zadd', 'zrange', 'zrangebyscore', 'zrem', 'zscore', 'hincrby'},
}
for _, command in ipairs(besides[ARGV[5]] or {}) do
  if command == 'hincrby' then
    check(command, KEYS[2], 'n', '1')
  elseif command == 'zadd' then
    check(command, KEYS[2], '1', 'm')
  elseif command == 'zrem' or command == 'zscore' then
    check(command, KEYS[2], 'm')
  elseif command == 'zcard' then
    check(command, KEYS[2])
  else
    check(command, KEYS[2], '0', '1')
  end
end
return denied
