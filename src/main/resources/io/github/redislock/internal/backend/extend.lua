-- extend.lua: renew the lease when the lock key still holds the caller's token.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's companion hash (same cluster slot)
-- ARGV[1]  the caller's token
-- ARGV[2]  the new lease in milliseconds
-- ARGV[3]  the companion hash's time to live in milliseconds
--
-- Replies:
--   1   extended
--   0   not the owner any more: the key is gone, holds another token, or is not a string
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  redis.call('pexpire', KEYS[2], ARGV[3])
  return 1
end
return 0
