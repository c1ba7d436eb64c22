-- condition.lua: the awaiters of one Condition of a lock, kept in Redis, and its signals.
--
-- An awaiter enqueues itself and releases the lock in one step ('await'), so that no signal can
-- come between the two. Awaiters are ordered by a sequence number this script draws (never a
-- client clock); each entry has a lease, renewed by its awaiter while it waits ('wait'), so that
-- the entry of an awaiter whose process died is skipped once it runs out. A signal moves the
-- oldest live awaiter ('signal'), or all of them ('all'), to the signalled set, checking first
-- that the signaller holds the lock, and publishes who was signalled. A signalled entry has a
-- lease too, renewed by its awaiter until it holds the lock again ('done' removes it then): when
-- it runs out (the awaiter died before it took the lock again), its signal passes on to the
-- oldest live awaiter. Every operation first sweeps the entries whose lease ran out; an entry
-- without a lease (its lease deleted or evicted) is no awaiter, and is dropped where it is met.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the awaiters: a sorted set, awaiter id -> sequence number (the order of arrival)
-- KEYS[3]  the awaiters' leases: a sorted set, awaiter id -> server time (ms) its entry expires
-- KEYS[4]  the signalled awaiters: a sorted set, awaiter id -> server time (ms) its signal passes
--          on, unless the awaiter takes the lock again first
-- KEYS[5]  the lock's companion hash, whose field ARGV[9] draws the sequence numbers
-- KEYS[6]  'await', 'abandon' and 'release', on a fair lock: the fair lock's queue (waiter id ->
--          sequence number); on the write lock of a read-write lock: its read shares (share token
--          -> server time (ms) the share's lease ends)
-- KEYS[7]  'await', 'abandon' and 'release', on a fair lock only: the fair queue's leases (waiter
--          id -> expiry, ms)
-- ARGV[1]  the operation: 'await', 'wait', 'cancel', 'abandon', 'done', 'signal', 'all' or
--          'release'
-- ARGV[2]  the awaiter's id ('await', 'wait', 'cancel', 'abandon', 'done'), else ''
-- ARGV[3]  the caller's lock token ('await', 'signal', 'all', 'release'), else ''
-- ARGV[4]  the lease of an entry, in milliseconds
-- ARGV[5]  the time to live of the companion hash KEYS[5], in milliseconds, set again by every write
-- ARGV[6]  the condition's channel
-- ARGV[7]  the lock's wake-up channel
-- ARGV[8]  how to publish: 'spublish' (sharded Pub/Sub, on a Redis Cluster; a server without it
--          gets 'publish' instead) or 'publish'
-- ARGV[9]  the companion hash's field for the sequence numbers
-- ARGV[10] the kind of lock, which a release follows: 'plain', 'fair' or 'write' (the write lock
--          of a read-write lock, released as the plain lock is)
-- ARGV[11] 'release' only: how many awaiters to signal, or 'all' for every one
-- ARGV[12] 'release' only, optional: the lock may be handed to the first awaiter signalled, unless
--          another client waits for it: ARGV[12] is how many of the subscribers of the lock's
--          channel are the caller's own ('0' or '1'); more subscribers than that, no hand-over
--
-- Replies:
--   'await'  {1, seq, n}  enqueued with sequence number seq, and the lock released (n clients
--                         were subscribed to the lock's channel)
--            {2, seq}     enqueued already by an earlier call with this id (its reply was lost)
--            {3}          enqueued by an earlier call, and signalled since
--            {0}          the lock key does not hold ARGV[3]: nothing was done
--            {4}          as {3}, and the lock was handed to it (the lock key holds its id)
--   'wait'   1 waiting (lease renewed), 2 signalled (lease renewed), 3 signalled and handed the
--            lock (the lock key holds its id), 0 gone (it ran out)
--   'cancel' 0 left the queue, not signalled; 1 signalled (it stays signalled: the awaiter takes
--            the lock again and then 'done'); 3 signalled and handed the lock; 2 gone
--   'abandon' an awaiter that will take neither a signal nor the lock (its await or its cancel
--            failed, not knowing what Redis did; its factory closed) leaves: 0 left the queue; 1 it
--            was signalled, and its signal passed on to the oldest live awaiter; 3 as 1, and the
--            lock handed to it was released (as 'await' releases it); 2 gone
--   'done'   1 removed, 0 it was not there
--   'signal' {1, id} signalled awaiter id; {0} nobody waits; {-1} the caller does not hold the lock
--   'all'    {n, seq} signalled the n awaiters whose sequence numbers are seq or less; {-1} not
--            the holder
--   'release' the signals a holder gave, then its release, in one step (a signal given while no
--            awaiter of this JVM waits travels with the release that ends the hold, so that the
--            awaiter it wakes finds the lock free):
--            {1, n, seq, id...} released (n clients were subscribed to the lock's channel);
--            every awaiter numbered seq or less was signalled ('all'; else seq is 0), or the
--            awaiters id... were; {0} the lock key does not hold ARGV[3]: nothing was done.
--            With ARGV[12], on a lock that is not fair, when one by one signals woke an awaiter
--            and no other client is subscribed to the lock's channel (nobody else waits for the
--            lock), the lock is not deleted but handed to the first awaiter woken: the lock key
--            takes its id, expiring when its entry would have, and its message is 'held:<id>';
--            then n is 0 and nothing is published on the lock's channel. A write lock is not
--            handed over while a read share is live (its holder's own, taken by a downgrade): a
--            writer and a reader never hold the lock together
--
-- Messages on the condition's channel: 'to:<id>' (awaiter id was signalled), 'held:<id>' (it was
-- signalled and holds the lock) and 'all:<seq>' (every awaiter with sequence number seq or less
-- was signalled). On the lock's channel, 'await', 'abandon' and 'release' announce the release as
-- release.lua does ('released': on a write lock it wakes the waiting readers and writers), or, on a
-- fair lock, hand the lock to the first live waiter and name it ('to:<first waiter>'), as
-- fair_release.lua does.
local op = ARGV[1]
local id = ARGV[2]
local fair = ARGV[10] == 'fair'
local lease = tonumber(ARGV[4])
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local function publish(channel, message)
  if ARGV[8] == 'spublish' then
    local n = redis.pcall('spublish', channel, message)
    if type(n) == 'number' then
      return n
    end
  end
  return redis.call('publish', channel, message)
end

local function remove(key, members)
  for i = 1, #members, 1000 do
    redis.call('zrem', key, unpack(members, i, math.min(i + 999, #members)))
  end
end

-- Makes the sets written outlive their entries, and no more: an entry lasts one lease (ARGV[4])
-- from its last write, so a set expires at most one lease after its last entry was written (the
-- signalled set: after the last awaiter's renewal, so that a signal whose awaiter died is passed on
-- by the sweep of a renewal). The expiry is only ever moved later, never earlier. A set that
-- does not exist is left alone (PEXPIRE of a missing key does nothing).
local function expire(...)
  for _, key in ipairs({...}) do
    if redis.call('pttl', key) < lease then
      redis.call('pexpire', key, lease)
    end
  end
end

-- The companion hash keeps the sequence counter, as long as the fencing counter beside it.
local function keepCounter()
  redis.call('pexpire', KEYS[5], ARGV[5])
end

-- The longest-waiting awaiter, or nil. An entry without a lease (its member of KEYS[3] deleted or
-- evicted) would never run out: it is no awaiter, and is dropped, as fair_acquire.lua drops such a
-- place.
local function head()
  local first = redis.call('zrange', KEYS[2], 0, 0)[1]
  while first and not redis.call('zscore', KEYS[3], first) do
    redis.call('zrem', KEYS[2], first)
    first = redis.call('zrange', KEYS[2], 0, 0)[1]
  end
  return first
end

-- A signal whose awaiter will not take it goes to the longest-waiting awaiter, if any.
local function passOn()
  local next = head()
  if next then
    redis.call('zrem', KEYS[2], next)
    redis.call('zrem', KEYS[3], next)
    redis.call('zadd', KEYS[4], now + lease, next)
    expire(KEYS[4])
    publish(ARGV[6], 'to:' .. next)
  end
end

-- Awaiters whose entry ran out are gone; a signal whose awaiter did not take it passes on.
local function sweep()
  local dead = redis.call('zrangebyscore', KEYS[3], '-inf', now)
  if #dead > 0 then
    remove(KEYS[2], dead)
    remove(KEYS[3], dead)
  end
  local lapsed = redis.call('zrangebyscore', KEYS[4], '-inf', now)
  if #lapsed > 0 then
    remove(KEYS[4], lapsed)
    for _ = 1, #lapsed do
      passOn()
    end
  end
end

local function holds()
  return redis.pcall('get', KEYS[1]) == ARGV[3]
end

-- Deletes the lock key and announces it on the lock's channel; on a fair lock, as fair_release.lua
-- does, the first live waiter holds the lock at once (the key takes its id, expiring when its place
-- would have), and the message tells it alone. Returns how many clients heard it.
local function release()
  redis.call('del', KEYS[1])
  local message = 'released'
  if fair then
    local dead = redis.call('zrangebyscore', KEYS[7], '-inf', now)
    if #dead > 0 then
      remove(KEYS[6], dead)
      remove(KEYS[7], dead)
    end
    local waiter = redis.call('zrange', KEYS[6], 0, 0)[1]
    while waiter do
      local placeEnd = redis.call('zscore', KEYS[7], waiter)
      redis.call('zrem', KEYS[6], waiter)
      redis.call('zrem', KEYS[7], waiter)
      if placeEnd then
        redis.call('set', KEYS[1], waiter, 'PX', math.max(1, tonumber(placeEnd) - now))
        message = 'to:' .. waiter
        break
      end
      waiter = redis.call('zrange', KEYS[6], 0, 0)[1]
    end
  end
  return publish(ARGV[7], message)
end

-- Signals the oldest live awaiter: returns its id, or nil when nobody waits. With hand, the lock
-- key (deleted or about to be) takes its id, expiring when its entry would have.
local function signalOne(hand)
  local next = head()
  if not next then
    return nil
  end
  local entryEnd = redis.call('zscore', KEYS[3], next)
  redis.call('zrem', KEYS[2], next)
  redis.call('zrem', KEYS[3], next)
  redis.call('zadd', KEYS[4], now + lease, next)
  expire(KEYS[4])
  if hand and entryEnd then
    redis.call('set', KEYS[1], next, 'PX', math.max(1, tonumber(entryEnd) - now))
    publish(ARGV[6], 'held:' .. next)
    return next, true
  end
  publish(ARGV[6], 'to:' .. next)
  return next, false
end

-- Whether a client other than the caller is subscribed to the lock's channel (waits for the lock),
-- or that cannot be told: the user may not run PUBSUB NUMSUB (asked first, so that its ACL LOG
-- records no refusal), or the server has no sharded Pub/Sub.
local function othersWait()
  local count = 'numsub'
  if ARGV[8] == 'spublish' then
    count = 'shardnumsub'
  end
  if redis.acl_check_cmd then
    local checked, allowed = pcall(redis.acl_check_cmd, 'pubsub', count, ARGV[7])
    if not checked or not allowed then
      return true
    end
  end
  local reply = redis.pcall('pubsub', count, ARGV[7])
  if type(reply) ~= 'table' or not reply[2] then
    return true
  end
  return tonumber(reply[2]) > tonumber(ARGV[12])
end

-- Whether a read share of the write lock is live (only its holder's own can be: a downgrade).
local function reading()
  return ARGV[10] == 'write' and redis.call('zcount', KEYS[6], '(' .. now, '+inf') > 0
end

-- Whether the lock key holds the awaiter's id: a release handed it the lock.
local function handed()
  return redis.pcall('get', KEYS[1]) == id
end

-- Signals every awaiter (an entry without a lease is none: see head()): returns how many, and the
-- greatest sequence number among them (0, 0 when nobody waits).
local function signalEvery()
  local queued = redis.call('zrange', KEYS[2], 0, -1, 'withscores')
  local count = 0
  local upTo = 0
  local batch = {}
  for i = 1, #queued, 2 do
    if redis.call('zscore', KEYS[3], queued[i]) then
      batch[#batch + 1] = now + lease
      batch[#batch + 1] = queued[i]
      count = count + 1
      upTo = tonumber(queued[i + 1])
      if #batch >= 2000 then
        redis.call('zadd', KEYS[4], unpack(batch))
        batch = {}
      end
    end
  end
  redis.call('del', KEYS[2], KEYS[3])
  if count == 0 then
    return 0, 0
  end
  if #batch > 0 then
    redis.call('zadd', KEYS[4], unpack(batch))
  end
  expire(KEYS[4])
  publish(ARGV[6], 'all:' .. string.format('%d', upTo))
  return count, upTo
end

if op == 'await' then
  local seq = redis.call('zscore', KEYS[2], id)
  if seq then
    return {2, tonumber(seq)}
  end
  if redis.call('zscore', KEYS[4], id) then
    if handed() then
      return {4}
    end
    return {3}
  end
  if not holds() then
    return {0}
  end
  sweep()
  seq = redis.call('hincrby', KEYS[5], ARGV[9], 1)
  redis.call('zadd', KEYS[2], seq, id)
  redis.call('zadd', KEYS[3], now + lease, id)
  expire(KEYS[2], KEYS[3], KEYS[4])
  keepCounter()
  return {1, seq, release()}
end

if op == 'release' then
  if not holds() then
    return {0}
  end
  sweep()
  local reply = {1, 0, 0}
  local heldBy = false
  if ARGV[11] == 'all' then
    local _, upTo = signalEvery()
    reply[3] = upTo
  else
    local hand = ARGV[12] ~= nil and ARGV[12] ~= '' and not fair and not reading()
        and not othersWait()
    for i = 1, tonumber(ARGV[11]) do
      local next, handedTo = signalOne(hand and i == 1)
      if not next then
        break
      end
      heldBy = heldBy or handedTo
      reply[#reply + 1] = next
    end
  end
  if not heldBy then
    reply[2] = release()
  end
  return reply
end

if op == 'signal' or op == 'all' then
  if not holds() then
    return {-1}
  end
  sweep()
  if op == 'signal' then
    local next = signalOne()
    if not next then
      return {0}
    end
    return {1, next}
  end
  local n, upTo = signalEvery()
  return {n, upTo}
end

sweep()
if op == 'wait' then
  if redis.call('zscore', KEYS[3], id) then
    redis.call('zadd', KEYS[3], now + lease, id)
    -- The signalled set too: a signal whose awaiter died passes on when a sweep finds its entry
    -- run out, so the set must outlive that entry for as long as awaiters renew.
    expire(KEYS[2], KEYS[3], KEYS[4])
    keepCounter()
    return 1
  end
  if redis.call('zscore', KEYS[4], id) then
    redis.call('zadd', KEYS[4], now + lease, id)
    expire(KEYS[4])
    if handed() then
      return 3
    end
    return 2
  end
  redis.call('zrem', KEYS[2], id) -- an entry whose lease is gone, if any: it is no awaiter
  return 0
end
if op == 'cancel' then
  if redis.call('zrem', KEYS[2], id) == 1 then
    redis.call('zrem', KEYS[3], id)
    return 0
  end
  if redis.call('zscore', KEYS[4], id) then
    redis.call('zadd', KEYS[4], now + lease, id)
    expire(KEYS[4])
    if handed() then
      return 3
    end
    return 1
  end
  return 2
end
if op == 'abandon' then
  if redis.call('zrem', KEYS[2], id) == 1 then
    redis.call('zrem', KEYS[3], id)
    return 0
  end
  if redis.call('zrem', KEYS[4], id) == 0 then
    return 2
  end
  local held = handed()
  passOn()
  if held then
    release()
    return 3
  end
  return 1
end
if op == 'done' then
  return redis.call('zrem', KEYS[4], id)
end
return redis.error_reply('ERR unknown condition operation ' .. tostring(op))
