"""Lua scripts of the winnable pool and of deal verdicts (used by :mod:`.deals`).

Same rules as :mod:`.lua`: one hash slot per script (a pool's keys share ``{<variant|options>}``,
a verdict's keys are the race's), checked by tests/server/test_slots.py.
"""

from solrace.server.store.lua import PRELUDE

# KEYS pool | ARGV member cap — add a certified seed unless the pool holds ``cap`` already:
# two processes topping up one pool can never overfill it. 1 added, 0 full (or already in).
POOL_ADD = """
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
return redis.call('SADD', KEYS[1], ARGV[1])
"""

# KEYS meta ev | ARGV channel outcome par nodes event — record a finished race's verdict once
# and emit it as the race's next event. {'ok', version} when written; {'dup'} when a verdict
# is there already (another process's, or a retry); {'state', s} when the race is not finished.
VERDICT = PRELUDE + """
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= 'finished' then return {'state', state or 'none'} end
if redis.call('HEXISTS', KEYS[1], 'verdict') == 1 then return {'dup'} end
redis.call('HSET', KEYS[1], 'verdict', ARGV[2], 'verdict_par', ARGV[3], 'verdict_nodes', ARGV[4])
return {'ok', emit(KEYS[1], KEYS[2], ARGV[1], ARGV[5])}
"""

# KEYS due | ARGV now_ms lease_ms limit — take up to ``limit`` pending verdicts whose lease has
# run out, leasing them to the caller (their score moves ``lease_ms`` ahead): two processes
# sweeping at once never take the same race.
VERDICT_TAKE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, rid in ipairs(due) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), rid)
end
return due
"""
