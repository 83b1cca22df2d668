"""Lua scripts that coordinate server processes (used by :mod:`.deals`, :mod:`.dailies`,
:mod:`.sweeps` and :mod:`.pairing`): owner-checked locks and leases, and the quick-pairing
queue.

Same rules as :mod:`.lua`: one hash slot per script, checked by tests/server/test_slots.py.
"""

# KEYS lock | ARGV owner: delete the lock only if this owner holds it
UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS lock | ARGV owner ttl — extend the lock only while the caller holds it
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
end
return 0
"""

# KEYS lease | ARGV owner ttl_ms — take a free lease (SET NX PX); the Redis time in ms when
# taken (the caller dates its index entry with it), 0 when another owner holds it
LEASE_TAKE = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2])) then return 0 end
local t = redis.call('TIME')
return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS lease | ARGV owner ttl_ms — extend the lease only while the caller holds it; the Redis
# time in ms when extended, 0 when the lease is lost (expired, taken over, or deleted at the end)
LEASE_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
local t = redis.call('TIME')
return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS queue | ARGV entry ttl player take seen…: entry is
# <pid>:<name>:<process>:<rating>:<rd>:<since_ms>, player its <pid>: prefix (a player already
# waiting, from any process, gets 'already'). ``seen`` is the queue as the caller read it and
# chose from (solrace.shared.skillpair): if it changed meanwhile, 'changed' (read again);
# else the chosen entry ``take`` is popped ('match'), or, with ``take`` empty, entry waits.
QUICK = """
local mine = ARGV[3]
local now = redis.call('LRANGE', KEYS[1], 0, -1)
for _, m in ipairs(now) do
  if string.sub(m, 1, #mine) == mine then return {'already'} end
end
if #now ~= #ARGV - 4 then return {'changed'} end
for i, m in ipairs(now) do
  if m ~= ARGV[4 + i] then return {'changed'} end
end
if ARGV[4] ~= '' then
  redis.call('LREM', KEYS[1], 1, ARGV[4])
  return {'match', ARGV[4]}
end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return {'wait'}
"""

# KEYS queue | ARGV mine rival — two waiting entries paired with each other (a waiting player's
# re-check): both removed if both still wait ('match'), else nothing changes ('gone').
QUICK_PAIR = """
if not redis.call('LPOS', KEYS[1], ARGV[1]) or not redis.call('LPOS', KEYS[1], ARGV[2]) then
  return {'gone'}
end
redis.call('LREM', KEYS[1], 1, ARGV[1])
redis.call('LREM', KEYS[1], 1, ARGV[2])
return {'match'}
"""

# KEYS queue | ARGV prefix — remove the entries starting with ``prefix``; returns how many.
QUICK_CANCEL = """
local n = 0
for _, m in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if string.sub(m, 1, #ARGV[1]) == ARGV[1] then
    n = n + redis.call('LREM', KEYS[1], 0, m)
  end
end
return n
"""
