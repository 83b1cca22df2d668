"""Lua scripts of names, accounts and sessions; each touches the keys of one hash tag.

Name scripts run in the slot ``{account:<fold>}`` (account, its sessions and failures, and the
guest name key); session scripts in the slot of one session's token hash.
"""

NOW = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
"""

# KEYS account guest_name | ARGV pid ttl_s
# A guest takes a name (and all its look-alikes) unless an account or another guest has it.
CLAIM_GUEST = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'EX', tonumber(ARGV[2]))
return 1
"""

# KEYS account guest_name sessions | ARGV pid name kdf sid token_hash caller_pid
# A new account for pid; refused when the name (fold) is an account's (or a tombstone's), or
# a live guest's other than the caller's own guest name (an upgrade keeps it).
REGISTER = NOW + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 'account' end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[6] then return 'guest' end
redis.call('HSET', KEYS[1], 'player', ARGV[1], 'name', ARGV[2], 'kdf', ARGV[3],
           'created_at', now_ms())
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[5])
return 'ok'
"""

# KEYS fails | ARGV horizon_ms capacity nonce
# Record one failed password check; returns the stamps kept (newest `capacity` within the
# horizon), the Redis time last.
FAIL = NOW + """
local now = now_ms()
redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[2]) - 1)
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return now
"""

# KEYS fails | ARGV horizon_ms
# The failure stamps still within the horizon, then the Redis time.
FAILURES = NOW + """
local now = now_ms()
local out = redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[1]), '+inf', 'WITHSCORES')
local stamps = {}
for i = 2, #out, 2 do stamps[#stamps + 1] = out[i] end
stamps[#stamps + 1] = tostring(now)
return stamps
"""

# KEYS session | ARGV ttl_ms every_ms
# 1 when the session is live (and its last_seen and TTL refreshed if older than every_ms), 0
# when it was revoked or expired.
TOUCH = NOW + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local last = tonumber(redis.call('HGET', KEYS[1], 'last_seen') or '0')
local now = now_ms()
if now - last >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'last_seen', now)
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 1
"""

# KEYS session
# 1 when the session is live, 0 when it was revoked or expired (the check of every request).
ALIVE = """
return redis.call('EXISTS', KEYS[1])
"""

# KEYS session | ARGV ttl_ms field value ...
# A new session stamped with the Redis time.
NEW_SESSION = NOW + """
local now = now_ms()
redis.call('HSET', KEYS[1], 'created_at', now, 'last_seen', now, unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return now
"""
