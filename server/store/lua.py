"""The Lua scripts: every state change of a race, atomic in Redis.

Each script touches the keys of one race (one hash tag, one Cluster slot) passed in KEYS, reads
the Redis clock with ``TIME`` (one clock for every server process), checks the state it starts
from by name (the names are those of :mod:`solrace.server.game.lifecycle`, a test holds them to it)
and emits race events with ``emit``: a version from the race hash, an entry ``<v>-0`` in the
race's stream, and a pub/sub message ``<v>:<event>``.

Cluster rule (checked for every registered script by tests/server/test_slots.py): every key in
KEYS and every channel a script publishes on carries the same hash tag, so the script runs on
one slot of one shard. On a cluster, :func:`sharded` turns ``PUBLISH`` into ``SPUBLISH``.

Why one module of this size: the race's scripts share one prelude (``emit``, the clock) and one
vocabulary of hash fields, and tests/server/test_lifecycle.py reads them side by side against
the state table; the scripts of other jobs live beside their stores (``account_lua``,
``coord_lua``, ``deal_lua``, ``stats_lua``, ``tournament_lua``).
"""

import re

_PUBLISH = re.compile(r"""redis\.call\((['"])PUBLISH\1""")


def sharded(source: str) -> str:
    """The script with sharded pub/sub (Redis >= 7): ``SPUBLISH`` publishes on the shard that
    owns the channel's slot — the race's own shard, since the channel has the race's tag."""
    return _PUBLISH.sub("redis.call('SPUBLISH'", source)


PRELUDE = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Append key/value pairs to a msgpack fixmap (at most 15 entries) without unpacking it.
local function add_fields(payload, pairs)
  local head = string.byte(payload, 1)
  local n = #pairs / 2
  if head < 0x80 or head + n > 0x8f then error('event is not a small msgpack map') end
  local out = {string.char(head + n), string.sub(payload, 2)}
  for i = 1, #pairs do out[#out + 1] = cmsgpack.pack(pairs[i]) end
  return table.concat(out)
end
local function emit(meta, ev, channel, payload)
  local v = redis.call('HINCRBY', meta, 'version', 1)
  payload = add_fields(payload, {'at', now_ms()})
  redis.call('XADD', ev, v .. '-0', 'e', payload)
  redis.call('PUBLISH', channel, v .. ':' .. payload)
  return v
end
local function maybe_countdown(meta, racers, ready, ev, channel, countdown_ms)
  local n = redis.call('HLEN', racers)
  local least = tonumber(redis.call('HGET', meta, 'min_racers') or '2')
  if n >= least and redis.call('SCARD', ready) == n then
    local starts = now_ms() + tonumber(countdown_ms)
    redis.call('HSET', meta, 'state', 'countdown', 'starts_at', starts)
    emit(meta, ev, channel, cmsgpack.pack({k='countdown', starts_at=starts,
      commitment=redis.call('HGET', meta, 'commitment'), racers=n}))
  end
end
"""

# KEYS meta racers order ev ready | ARGV pid name channel auto_ready countdown_ms title
JOIN = PRELUDE + """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {'err', 'race_not_found'} end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {'ok', 0} end
if state ~= 'lobby' then return {'err', 'race_started'} end
if redis.call('HLEN', KEYS[2]) >= tonumber(redis.call('HGET', KEYS[1], 'seats')) then
  return {'err', 'race_full'}
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[3], ARGV[1])
local joined = {k='join', player=ARGV[1], name=ARGV[2]}
if ARGV[6] and ARGV[6] ~= '' then  -- a BOT account: labelled in the race for good
  redis.call('HSET', KEYS[1], 'p:' .. ARGV[1] .. ':title', ARGV[6])
  joined['title'] = ARGV[6]
end
local v = emit(KEYS[1], KEYS[4], ARGV[3], cmsgpack.pack(joined))
local ttl = redis.call('TTL', KEYS[1])
if ttl > 0 then for i = 2, 4 do redis.call('EXPIRE', KEYS[i], ttl) end end
if ARGV[4] == '1' then
  -- joining ready (quick pairing, dailies, practice): the log says so with a ready event,
  -- exactly as if the racer had sent race.ready
  redis.call('SADD', KEYS[5], ARGV[1])
  if ttl > 0 then redis.call('EXPIRE', KEYS[5], ttl) end
  emit(KEYS[1], KEYS[4], ARGV[3], cmsgpack.pack({k='ready', player=ARGV[1]}))
  maybe_countdown(KEYS[1], KEYS[2], KEYS[5], KEYS[4], ARGV[3], ARGV[5])
end
return {'ok', v}
"""

# KEYS meta racers order ready ev | ARGV pid channel countdown_ms retention
LEAVE = PRELUDE + """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {'err', 'race_not_found'} end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return {'err', 'not_in_race'} end
if state ~= 'lobby' then return {'err', 'race_started'} end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('LREM', KEYS[3], 0, ARGV[1])
redis.call('SREM', KEYS[4], ARGV[1])
local v = emit(KEYS[1], KEYS[5], ARGV[2], cmsgpack.pack({k='leave', player=ARGV[1]}))
if redis.call('HLEN', KEYS[2]) == 0 then
  redis.call('HSET', KEYS[1], 'state', 'closed')
  v = emit(KEYS[1], KEYS[5], ARGV[2], cmsgpack.pack({k='closed'}))
  for i = 1, 5 do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[4])) end
else
  maybe_countdown(KEYS[1], KEYS[2], KEYS[4], KEYS[5], ARGV[2], ARGV[3])
end
return {'ok', v}
"""

# KEYS meta racers ready ev | ARGV pid channel countdown_ms
READY = PRELUDE + """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {'err', 'race_not_found'} end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return {'err', 'not_in_race'} end
if state ~= 'lobby' then return {'err', 'race_started'} end
if redis.call('SADD', KEYS[3], ARGV[1]) == 1 then
  local ttl = redis.call('TTL', KEYS[1])
  if ttl > 0 then redis.call('EXPIRE', KEYS[3], ttl) end
  emit(KEYS[1], KEYS[4], ARGV[2], cmsgpack.pack({k='ready', player=ARGV[1]}))
  maybe_countdown(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], ARGV[3])
end
return {'ok', tonumber(redis.call('HGET', KEYS[1], 'version'))}
"""

# KEYS meta racers ev order ready | ARGV channel start_event_bytes home_at_deal ttl pid...
START = PRELUDE + """
local m = redis.call('HMGET', KEYS[1], 'state', 'starts_at', 'time_limit')
if not m[1] then return {'err', 'race_not_found'} end
if m[1] ~= 'countdown' then return {'state', m[1]} end
local now = now_ms()
local starts = tonumber(m[2])
if now < starts then return {'wait', starts - now} end
local f = {'state', 'running', 'started_at', starts, 'ends_at', starts + 1000 * tonumber(m[3]),
  'unfinished', redis.call('HLEN', KEYS[2])}
for i = 5, #ARGV do
  f[#f + 1] = 'p:' .. ARGV[i] .. ':home'; f[#f + 1] = ARGV[3]
  f[#f + 1] = 'p:' .. ARGV[i] .. ':moves'; f[#f + 1] = 0
end
redis.call('HSET', KEYS[1], unpack(f))
local v = emit(KEYS[1], KEYS[3], ARGV[1], ARGV[2])
local ttl = tonumber(m[3]) + tonumber(ARGV[4])
for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], ttl) end
return {'ok', v}
"""

# The move path (MOVE, BATCH) is the hot one. Per move it runs one HMGET of the race hash
# (state, clock, version, the processes following the race, whether this player's game is
# over), one TIME, one RPUSH (its reply is the new length: the sequence check; a mismatch is
# undone at once and answered stale or dup), one HSET of the race hash (the version and the
# player's fields ``p:<pid>:home|moves|last|progress_at|result|finished_at``) and one XADD — six
# commands with the EVALSHA — plus a PUBLISH only when a process other than the caller follows
# the race (field ``procs``, kept by FOLLOW): the caller hands the event to its own connections
# itself (Store.local). Replies carry ``now`` so that the caller can rebuild the event's ``at``.
MOVE_PRELUDE = PRELUDE + """
local function move_head(meta, pid)
  local m = redis.call('HMGET', meta, 'state', 'started_at', 'ends_at', 'version', 'procs',
    'p:' .. pid .. ':result')
  if m[1] ~= 'running' then return nil, {'err', 'not_running'} end
  local now = now_ms()
  if now >= tonumber(m[3]) then return nil, {'err', 'time_up'} end
  if m[6] and m[6] ~= '' then return nil, {'err', 'already_finished'} end
  return m, now
end
local function others_follow(procs, me)
  return procs and procs ~= me
end
-- the race hash's fields after a player's move(s): version, then the player's own
local function player_fields(pid, v, home, moves, elapsed, progressed, result)
  local p = 'p:' .. pid .. ':'
  local f = {'version', v, p .. 'home', home, p .. 'moves', moves, p .. 'last', elapsed}
  if progressed then f[#f + 1] = p .. 'progress_at'; f[#f + 1] = elapsed end
  if result ~= '' then
    f[#f + 1] = p .. 'result'; f[#f + 1] = result
    f[#f + 1] = p .. 'finished_at'; f[#f + 1] = elapsed
  end
  return f
end
"""

# KEYS meta log ev | ARGV pid seq move home progressed result channel event_body process
# event_body: the msgpack ``progress`` event without ``elapsed`` and ``at`` (added here)
MOVE = MOVE_PRELUDE + """
local m, now = move_head(KEYS[1], ARGV[1])
local seq = tonumber(ARGV[2])
if not m then  -- refused; but a retry of a move already logged is a duplicate, whatever now
  local n = redis.call('LLEN', KEYS[2])
  if seq < n and redis.call('LINDEX', KEYS[2], seq) == ARGV[3] then return {'dup', n} end
  return now
end
local n = redis.call('RPUSH', KEYS[2], ARGV[3]) - 1
if n ~= seq then
  redis.call('RPOP', KEYS[2])
  if seq < n and redis.call('LINDEX', KEYS[2], seq) == ARGV[3] then return {'dup', n} end
  return {'stale', n}
end
local elapsed = now - tonumber(m[2])
local v = tonumber(m[4]) + 1
redis.call('HSET', KEYS[1],
  unpack(player_fields(ARGV[1], v, ARGV[4], n + 1, elapsed, ARGV[5] == '1', ARGV[6])))
local unfinished = -1
if ARGV[6] ~= '' then unfinished = redis.call('HINCRBY', KEYS[1], 'unfinished', -1) end
local payload = add_fields(ARGV[8], {'elapsed', elapsed, 'at', now})
redis.call('XADD', KEYS[3], v .. '-0', 'e', payload)
if others_follow(m[5], ARGV[9]) then redis.call('PUBLISH', ARGV[7], v .. ':' .. payload) end
return {'ok', v, elapsed, unfinished, now}
"""

# KEYS meta log ev | ARGV pid seq k result channel process, then per move (k times):
#   move home progressed event_body
# A batch of moves (autoplay, finish, a move with auto): ONE sequence check, then every move
# appended and one progress event emitted per move (versions stay gap-free; each event is what
# MOVE would have emitted for that move), all at one instant. A retry of an applied batch finds
# its moves at ``seq`` in the log: ``dup`` — also once the game or the race is over (a retry
# of a game's last move after an ``unavailable``). Keys of one race: one hash slot.
BATCH = MOVE_PRELUDE + """
local m, now = move_head(KEYS[1], ARGV[1])
local seq = tonumber(ARGV[2])
local k = tonumber(ARGV[3])
local texts = {}
for i = 1, k do texts[i] = ARGV[7 + 4 * (i - 1)] end
if not m then  -- refused; but a retry of a batch already logged is a duplicate, whatever now
  local n = redis.call('LLEN', KEYS[2])
  if seq + k <= n then
    local old = redis.call('LRANGE', KEYS[2], seq, seq + k - 1)
    local same = true
    for i = 1, k do
      if old[i] ~= texts[i] then same = false end
    end
    if same then return {'dup', n} end
  end
  return now
end
local n = redis.call('RPUSH', KEYS[2], unpack(texts)) - k
if n ~= seq then
  redis.call('RPOP', KEYS[2], k)
  if seq < n then
    local old = redis.call('LRANGE', KEYS[2], seq, seq + k - 1)
    local same = #old == k
    for i = 1, #old do
      if old[i] ~= texts[i] then same = false end
    end
    if same then return {'dup', n} end
  end
  return {'stale', n}
end
local elapsed = now - tonumber(m[2])
local v = tonumber(m[4])
local progressed = false
local publish = others_follow(m[5], ARGV[6])
for i = 1, k do
  local b = 7 + 4 * (i - 1)
  if ARGV[b + 2] == '1' then progressed = true end
  v = v + 1
  local payload = add_fields(ARGV[b + 3], {'elapsed', elapsed, 'at', now})
  redis.call('XADD', KEYS[3], v .. '-0', 'e', payload)
  if publish then redis.call('PUBLISH', ARGV[5], v .. ':' .. payload) end
end
redis.call('HSET', KEYS[1], unpack(player_fields(ARGV[1], v, ARGV[7 + 4 * (k - 1) + 1], n + k,
  elapsed, progressed, ARGV[4])))
local unfinished = -1
if ARGV[4] ~= '' then unfinished = redis.call('HINCRBY', KEYS[1], 'unfinished', -1) end
return {'ok', v, elapsed, unfinished, now}
"""

# KEYS meta | ARGV process follow(1/0): keep the race's ``procs`` field, the comma-separated
# processes whose hub is subscribed to the race's channel (MOVE and BATCH publish only when one
# other than the mover's follows). A process subscribes before it follows and reads the stream
# after (Feed.attach), so an event it was not published is in the stream it reads. A crashed
# process stays listed until the race's keys expire: that only costs a needless PUBLISH.
FOLLOW = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local cur = redis.call('HGET', KEYS[1], 'procs') or ''
local out = {}
for p in string.gmatch(cur, '[^,]+') do if p ~= ARGV[1] then out[#out + 1] = p end end
if ARGV[2] == '1' then out[#out + 1] = ARGV[1] end
if #out == 0 then redis.call('HDEL', KEYS[1], 'procs')
else redis.call('HSET', KEYS[1], 'procs', table.concat(out, ',')) end
return #out
"""

# KEYS meta ev racers | ARGV pid channel dealt_home (home of a racer who never moved)
RESIGN = PRELUDE + """
local p = 'p:' .. ARGV[1] .. ':'
local m = redis.call('HMGET', KEYS[1], 'state', 'started_at', 'ends_at', p .. 'result',
  p .. 'home', p .. 'moves')
if not m[1] then return {'err', 'race_not_found'} end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 0 then return {'err', 'not_in_race'} end
if m[1] ~= 'running' then return {'err', 'not_running'} end
local now = now_ms()
if now >= tonumber(m[3]) then return {'err', 'time_up'} end
if m[4] and m[4] ~= '' then return {'err', 'already_finished'} end
local elapsed = now - tonumber(m[2])
redis.call('HSET', KEYS[1], p .. 'result', 'resigned', p .. 'finished_at', elapsed)
local unfinished = redis.call('HINCRBY', KEYS[1], 'unfinished', -1)
local ev = {k='progress', player=ARGV[1], home=tonumber(m[5] or ARGV[3]),
  moves=tonumber(m[6] or '0'), elapsed=elapsed, result='resigned'}
return {'ok', emit(KEYS[1], KEYS[2], ARGV[2], cmsgpack.pack(ev)), elapsed, unfinished}
"""

# KEYS meta ev result | ARGV channel end_event_bytes version_read finisher
# ``finisher`` is a token of the calling attempt: a retry of a finish that already took effect
# (a lost reply) answers ok again, so its caller still retires the race and runs the hooks.
FINISH = PRELUDE + """
local m = redis.call('HMGET', KEYS[1], 'state', 'ends_at', 'unfinished', 'version', 'finisher')
if m[1] == 'finished' and m[5] == ARGV[4] then return {'ok', tonumber(m[4])} end
if m[1] ~= 'running' then return {'state', m[1] or 'none'} end
local now = now_ms()
if tonumber(m[3]) > 0 and now < tonumber(m[2]) then return {'early', tonumber(m[2]) - now} end
if m[4] ~= ARGV[3] then return {'retry', 0} end
redis.call('HSET', KEYS[1], 'state', 'finished', 'ended_at', now, 'finisher', ARGV[4])
redis.call('SET', KEYS[3], ARGV[2])
return {'ok', emit(KEYS[1], KEYS[2], ARGV[1], ARGV[2])}
"""

# KEYS meta watchers | ARGV member add(1/0) ttl_ms channel
# The count goes out on the race channel as ``n:<count>`` (no version, nothing in the event
# stream): visitors coming and going must not grow the race's durable log.
SPECTATE = PRELUDE + """
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local changed
if ARGV[2] == '1' then
  changed = redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
else
  changed = redis.call('ZREM', KEYS[2], ARGV[1])
end
local count = redis.call('ZCARD', KEYS[2])
local state = redis.call('HGET', KEYS[1], 'state')
if changed == 1 and state and state ~= 'finished' and state ~= 'closed' then
  redis.call('PUBLISH', ARGV[4], 'n:' .. count)
end
return count
"""

# KEYS online | ARGV member add(1/0) ttl_ms — presence, never in the event log
PRESENCE = PRELUDE + """
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[2] == '1' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[3]))
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""
