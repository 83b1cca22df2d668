"""Lua scripts of a player's records (used by :mod:`.players`, :mod:`.dailies` and
:mod:`.lifecycle`): daily leaderboards, daily and per-options statistics, ratings, wins and the
analysis quota.

Same rules as :mod:`.lua`: one hash slot per script (a player's keys share their ``{pid}``
tag, a leaderboard's keys its day and board), checked by tests/server/test_slots.py.
"""

# KEYS lb entries | ARGV pid rank_key row ttl listed(1/0)
# A result under fair-play review is stored (its entry) but not listed (the zset) until cleared.
LB_RECORD = """
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[3]) == 0 then return 0 end
if ARGV[5] == '1' then redis.call('ZADD', KEYS[1], 0, ARGV[2]) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4]))
return 1
"""

# KEYS lb entries | ARGV pid review
# Fair play: set a stored result's review status; only a "clear" result is listed (ZADD of its
# rank key), any other status takes it off the board. 0 when the player has no result there.
LB_REVIEW = """
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 0 end
local row = cmsgpack.unpack(raw)
row['review'] = ARGV[2]
redis.call('HSET', KEYS[2], ARGV[1], cmsgpack.pack(row))
if ARGV[2] == 'clear' then redis.call('ZADD', KEYS[1], 0, row['key'])
else redis.call('ZREM', KEYS[1], row['key']) end
return 1
"""

# KEYS stats | ARGV variant date yesterday won(1/0)
# A streak counts consecutive UTC days with a won daily; a lost daily ends it.
DAILY_STATS = """
local v = ARGV[1]
redis.call('HINCRBY', KEYS[1], v .. ':dailies', 1)
if ARGV[4] ~= '1' then
  redis.call('HSET', KEYS[1], v .. ':streak', 0)
  return 0
end
redis.call('HINCRBY', KEYS[1], v .. ':daily_wins', 1)
local last = redis.call('HGET', KEYS[1], v .. ':last_daily')
local streak
if last == ARGV[2] then
  streak = tonumber(redis.call('HGET', KEYS[1], v .. ':streak') or '1')
elseif last == ARGV[3] then
  streak = redis.call('HINCRBY', KEYS[1], v .. ':streak', 1)
else
  streak = 1
  redis.call('HSET', KEYS[1], v .. ':streak', 1)
end
if streak > tonumber(redis.call('HGET', KEYS[1], v .. ':best_streak') or '0') then
  redis.call('HSET', KEYS[1], v .. ':best_streak', streak)
end
redis.call('HSET', KEYS[1], v .. ':last_daily', ARGV[2])
return streak
"""

# KEYS gstats days | ARGV config date won(1/0) time_ms home daily(1/0) prune_before
# One counted ranked result (a listed daily, a rated race's cleared result) in the player's
# statistics per variant and options and in the per-day counts (the chart, the badges). Both
# keys carry the player's tag. The first result of a new date prunes dates before prune_before.
GAME_STATS = """
local c = ARGV[1] .. ':'
local won = ARGV[3] == '1'
redis.call('HINCRBY', KEYS[1], c .. 'played', 1)
redis.call('HINCRBY', KEYS[1], c .. 'home', tonumber(ARGV[5]))
if won then
  local t = tonumber(ARGV[4])
  redis.call('HINCRBY', KEYS[1], c .. 'won', 1)
  local best = redis.call('HGET', KEYS[1], c .. 'best')
  if not best or t < tonumber(best) then redis.call('HSET', KEYS[1], c .. 'best', ARGV[4]) end
  redis.call('HINCRBY', KEYS[1], c .. 't' .. tostring(math.floor(t / 1000)), 1)
  local run = redis.call('HINCRBY', KEYS[1], c .. 'run', 1)
  if run > tonumber(redis.call('HGET', KEYS[1], c .. 'best_run') or '0') then
    redis.call('HSET', KEYS[1], c .. 'best_run', run)
  end
else
  redis.call('HSET', KEYS[1], c .. 'run', 0)
end
local d = ARGV[2]
if redis.call('HINCRBY', KEYS[2], d .. ':p', 1) == 1 then
  for _, f in ipairs(redis.call('HKEYS', KEYS[2])) do
    if string.sub(f, 1, 10) < ARGV[7] then redis.call('HDEL', KEYS[2], f) end
  end
end
if won then redis.call('HINCRBY', KEYS[2], d .. ':w', 1) end
if won and ARGV[6] == '1' then redis.call('HINCRBY', KEYS[2], d .. ':d', 1) end
return 1
"""

# KEYS rating | ARGV variant expected new — compare-and-set one player's rating: write ``new``
# only if the stored text is still ``expected`` ('' = none yet); 0 when another race's update
# came first (the caller recomputes from the fresh value). One key: Cluster-safe.
RATING_CAS = """
local cur = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if cur ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""

# KEYS stats | ARGV variant won(1/0) race_won(1/0) time_ms
WIN_STATS = """
local v = ARGV[1]
if ARGV[2] == '1' then
  redis.call('HINCRBY', KEYS[1], v .. ':wins', 1)
  local best = redis.call('HGET', KEYS[1], v .. ':best_time')
  if not best or tonumber(ARGV[4]) < tonumber(best) then
    redis.call('HSET', KEYS[1], v .. ':best_time', ARGV[4])
  end
end
if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[1], v .. ':races_won', 1) end
return 1
"""

# KEYS quota | ARGV limit window_ms member — a sliding window of fresh analyses (one caller's
# zset of start times): the start is recorded ({0}) when fewer than ``limit`` lie in the last
# ``window_ms``; otherwise nothing is recorded and the answer is {ms until one leaves it}.
ANALYSIS_QUOTA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  return {math.max(1, tonumber(oldest[2]) + window - now)}
end
redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return {0}
"""
